"""Platform knobs and tiling-function literals on the emulator: what the tiling is told changes the tiling it
derives (the kernel still runs on the whole chip), literals are tried without rebuilding the host, and what
`tune --apply` writes builds and passes."""

from __future__ import annotations

from pathlib import Path

import pytest
from opgen import PLATFORM_ELEMENTS, PLATFORM_HOST, SCALE_GOLDEN, scale_manifest, write_operator

from tilewise.analysis.findings import Fix
from tilewise.analysis.operator import load_operator
from tilewise.analysis.rewrite import apply_fix, tuned_edits
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest
from tilewise.search.space import platform_figures

DIVISOR = "perBuffer@scale.cpp:14:39"  # the second `/ 4` of `ubSize / 2 / 4`


@pytest.fixture
def op_root(tmp_path: Path) -> Path:
    root = write_operator(tmp_path / "scale", host=PLATFORM_HOST, manifest=scale_manifest(PLATFORM_ELEMENTS))
    (root / "golden.py").write_text(SCALE_GOLDEN)
    return root


def test_the_tiling_derives_its_own_tiling_from_a_capped_platform(op_root, emu_cache, needs_gxx):
    op = load_operator(op_root)
    device = EmulatorDevice(cache_dir=emu_cache)
    case = op.manifest.cases[0]
    shipped = device.run(op, RunRequest(case))
    eight = device.run(op, RunRequest(case, knobs={"platform.cores": 8}))
    small_ub = device.run(op, RunRequest(case, knobs={"platform.ub_bytes": 24576}))
    for m in (shipped, eight, small_ub):
        assert m.ok and m.correct, m.error
    assert (shipped.block_dim, eight.block_dim, small_ub.block_dim) == (48, 8, 48)
    # A UB of 24 KiB told to the tiling makes 3 KiB buffers: the kernel's InitBuffers shrink with it.
    sizes = {b.len for b in small_ub.init_buffers}
    assert sizes == {24576 // 2 // 4} and {b.len for b in shipped.init_buffers} == {196608 // 2 // 4}
    assert small_ub.time_us != shipped.time_us


def test_a_tiling_literal_is_a_run_time_value(op_root, emu_cache, needs_gxx):
    op = load_operator(op_root)
    device = EmulatorDevice(cache_dir=emu_cache)
    case = op.manifest.cases[0]
    four = device.run(op, RunRequest(case, knobs={DIVISOR: 4}))
    eight = device.run(op, RunRequest(case, knobs={DIVISOR: 8}))
    assert four.ok and four.correct and eight.ok and eight.correct
    assert eight.cached_build  # one host build serves every value of the literal
    assert {b.len for b in eight.init_buffers} == {196608 // 2 // 8}


def test_apply_writes_a_clamp_and_a_literal_that_build_and_pass(op_root, emu_cache, needs_gxx):
    op = load_operator(op_root)
    device = EmulatorDevice(cache_dir=emu_cache)
    host = op_root / "op_host" / "scale.cpp"
    before = host.read_text().splitlines()
    config = {"platform.cores": 16, "platform.ub_bytes": 196608, DIVISOR: 8}
    edits = tuned_edits(op.model, op.sources, config, platform=platform_figures(device.chip), cases=["small"])
    apply_fix(Fix(title="apply tuned tiling", edits=edits), write=True)
    after = host.read_text().splitlines()
    changed = [line for line in after if line not in before]
    assert changed == [
        "    coreNum = coreNum < 16 ? coreNum : 16;  // tilewise: tuned: platform.cores 16 (the chip has 48) on cases "
        "small",
        "    uint32_t perBuffer = ubSize / 2 / 8;  // tilewise: tuned",
    ]
    assert len(after) == len(before) + 1  # the clamp is a new line; the literal changed in place
    fresh = load_operator(op_root)
    m = device.run(fresh, RunRequest(fresh.manifest.cases[0]))
    assert m.ok and m.correct, m.error
    assert m.block_dim == 16 and {b.len for b in m.init_buffers} == {196608 // 2 // 8}


def test_a_screening_fingerprints_the_tiling_the_kernel_is_handed(op_root, emu_cache, needs_gxx):
    op = load_operator(op_root)
    device = EmulatorDevice(cache_dir=emu_cache)
    case = op.manifest.cases[0]
    shipped = device.screen(op, RunRequest(case, knobs={}))
    again = device.screen(op, RunRequest(case, knobs={"platform.ub_bytes": 196608}))  # the chip's own figure: no cap
    smaller = device.screen(op, RunRequest(case, knobs={"platform.ub_bytes": 24576}))
    assert shipped.ok and again.ok and smaller.ok
    assert shipped.tiling_digest is not None and len(shipped.tiling_digest) == 16
    assert again.tiling_digest == shipped.tiling_digest
    assert smaller.tiling_digest != shipped.tiling_digest  # another tileLength in the tiling bytes


def _manifest(elements: int, knob: str, domain: list[int]) -> str:
    return scale_manifest(elements) + f'\n[knobs."{knob}"]\ndomain = {domain}\n'


def _tune_apply(root: Path, emu_cache: Path, monkeypatch, capsys) -> dict:
    import json

    from tilewise.cli import main

    monkeypatch.setenv("TILEWISE_CACHE", str(emu_cache))
    code = main(["tune", str(root), "--strategy", "grid", "--budget", "4", "--apply", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    return data


def test_tune_apply_caps_the_platform_where_it_is_asked(tmp_path, emu_cache, needs_gxx, monkeypatch, capsys):
    # 12288 elements: a few cores pay less launch overhead than 48 with little work each
    root = write_operator(tmp_path / "scale", host=PLATFORM_HOST, manifest=_manifest(12288, "platform.cores", [8, 48]))
    (root / "golden.py").write_text(SCALE_GOLDEN)
    data = _tune_apply(root, emu_cache, monkeypatch, capsys)
    assert data["best"] == {"platform.cores": 8}
    assert data["applied"]["verified"] is True and data["applied"]["edits"] == 1
    # fewer cores win here by paying less launch overhead: the body alone is no faster
    gain = data["gain"]
    assert gain["total"] == pytest.approx(data["speedup"]) and gain["body"] < gain["total"]
    assert gain["sensitivities"] == []  # (only with --sensitivity)
    assert any("split" in note for note in data["not_reachable_by_knobs"])
    host = (root / "op_host" / "scale.cpp").read_text().splitlines()
    before = PLATFORM_HOST.splitlines()
    assert [line for line in host if line not in before] == [
        "    coreNum = coreNum < 8 ? coreNum : 8;  // tilewise: tuned: platform.cores 8 (the chip has 48) on cases "
        "small"
    ]
    assert len(host) == len(before) + 1


def test_tune_apply_rewrites_a_tiling_literal(tmp_path, emu_cache, needs_gxx, monkeypatch, capsys):
    root = write_operator(
        tmp_path / "scale", host=PLATFORM_HOST, manifest=_manifest(PLATFORM_ELEMENTS, DIVISOR, [4, 8])
    )
    (root / "golden.py").write_text(SCALE_GOLDEN)
    data = _tune_apply(root, emu_cache, monkeypatch, capsys)
    assert data["best"] == {DIVISOR: 8}  # smaller buffers overlap copies and compute better here
    assert data["applied"]["verified"] is True
    host = (root / "op_host" / "scale.cpp").read_text()
    assert host == PLATFORM_HOST.replace(
        "uint32_t perBuffer = ubSize / 2 / 4;", "uint32_t perBuffer = ubSize / 2 / 8;  // tilewise: tuned"
    )
