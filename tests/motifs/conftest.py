"""Fixtures of the motif tests: an emulator device, and an example operator copied with small cases."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tilewise.device.emulator import EmulatorDevice


@pytest.fixture
def device(emu_cache, needs_gxx) -> EmulatorDevice:
    return EmulatorDevice(cache_dir=emu_cache, timeout_s=120)


@pytest.fixture
def example_copy(tmp_path: Path) -> Callable[[str, str], Path]:
    """An example operator copied to tmp_path with its manifest's cases replaced by `cases` (TOML text)."""

    def make(name: str, cases: str) -> Path:
        root = tmp_path / name
        shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / name, root)
        manifest = (root / "tilewise.toml").read_text()
        head = manifest[: manifest.index("[[cases]]")]
        (root / "tilewise.toml").write_text(head + cases)
        return root

    return make
