"""The server's state without a client: superseded analyses stop early, settings are validated."""

from __future__ import annotations

import threading

import pytest
from lsp_helpers import EXAMPLES
from pydantic import ValidationError

from server.lsp.state import ServerState, Settings, Superseded


def test_a_superseded_analysis_stops_and_a_current_one_finishes():
    state = ServerState()
    root = str(EXAMPLES / "add_custom_slow_pipe_all")
    stale = threading.Event()
    stale.set()
    with pytest.raises(Superseded):
        state.analyse(root, {}, stale)
    analysis = state.analyse(root, {}, threading.Event())
    assert any(f.rule == "pipe-all-in-loop" for f in analysis.findings)


@pytest.mark.parametrize(("values", "complaint"), [
    ({"chip": "910X"}, "910B1, 910B2"), ({"strategy": "annealing"}, "evo, random"), ({"budget": 0}, "greater"),
    ({"device": "npu"}, "emulator"),
])
def test_bad_settings_name_what_is_allowed(values, complaint):
    with pytest.raises(ValidationError) as err:
        Settings.model_validate(values)
    assert complaint in str(err.value)


def test_settings_ignore_the_clients_own_keys():
    s = Settings.model_validate({"chip": "910B4", "pythonPath": "/somewhere/python", "trace": {"server": "off"}})
    assert s.chip == "910B4" and s.strategy == "evo"
