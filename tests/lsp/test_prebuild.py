"""The emulator's per-installation build started in the background when the editor connects
(lsp/features/prebuild.py): only in a trusted workspace on the emulator device, and never the server's failure."""

from __future__ import annotations

import logging

import pytest
from lsprotocol import types

from tilewise.device.emulator import build
from tilewise.lsp.features.prebuild import start_prebuild
from tilewise.lsp.server import create_server


@pytest.fixture
def calls(monkeypatch) -> list[str]:
    made: list[str] = []
    monkeypatch.setattr(build, "prebuild", lambda: made.append("built") or True)
    return made


def test_registered_for_initialized():
    assert types.INITIALIZED in create_server().protocol.fm.features


def test_a_trusted_emulator_workspace_builds_in_the_background(calls):
    server = create_server()
    server.state.trusted = True
    thread = start_prebuild(server)
    assert thread is not None and thread.daemon
    thread.join(30)
    assert calls == ["built"]


def test_an_untrusted_workspace_builds_nothing(calls):
    server = create_server()
    server.state.trusted = False
    assert start_prebuild(server) is None
    assert calls == []


def test_another_device_builds_nothing(calls):
    server = create_server()
    server.state.trusted = True
    server.state.settings = server.state.settings.model_copy(update={"device": "npu"})
    assert start_prebuild(server) is None
    assert calls == []


def test_a_failing_build_is_logged_not_raised(monkeypatch, caplog):
    def broken() -> bool:
        raise OSError("disk full")

    monkeypatch.setattr(build, "prebuild", broken)
    server = create_server()
    server.state.trusted = True
    with caplog.at_level(logging.WARNING, logger="tilewise.lsp"):
        thread = start_prebuild(server)
        assert thread is not None
        thread.join(30)
    assert "background build failed" in caplog.text
