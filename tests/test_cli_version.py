"""`tilewise --version` prints the installed distribution's version: the check the VS Code extension runs to tell a
Python with tilewise from one where an unrelated package called `server` happens to import."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import pytest

from tilewise import cli


def test_version_prints_the_distribution_version(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"tilewise {version('tilewise')}"


def test_without_the_distribution_it_says_so(capsys, monkeypatch):
    monkeypatch.setattr(cli, "installed_version", lambda: None)
    with pytest.raises(SystemExit):
        cli.main(["--version"])
    out = capsys.readouterr().out
    assert out.startswith("tilewise: not installed") and "pip install" in out


def test_the_module_run_outside_a_checkout_prints_it(tmp_path):
    """What the extension runs: `python -m server.cli --version`, with the working directory away from any
    checkout so only an installed tilewise can answer."""
    proc = subprocess.run(
        [sys.executable, "-m", "tilewise", "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"tilewise {version('tilewise')}"
