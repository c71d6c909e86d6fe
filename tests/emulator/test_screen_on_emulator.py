"""Screening on the emulator (`EmulatorDevice.screen`, device/emulator/screen.py): the host tiling, then block 0 up
to its first copy or vector instruction. A configuration whose InitBuffers overflow the UB, whose first GM<->UB copy
is not a whole number of 32-byte blocks, or whose tiling sets blockDim 0 is refused with that kind and the site; the
shipped one passes; and the screening builds what the run then uses (the build cache key is the run's)."""

from __future__ import annotations

from pathlib import Path

import pytest
from opgen import KERNEL, TUNED_HOST, replace_once, tuned_operator

from tilewise.analysis.operator import Operator, load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

KERNEL_FILE = "op_kernel/scale.cpp"


@pytest.fixture(scope="module")
def op(tmp_path_factory) -> Operator:
    return load_operator(tuned_operator(tmp_path_factory.mktemp("screen") / "scale"))


@pytest.fixture(scope="module")
def device(emu_cache: Path, needs_gxx) -> EmulatorDevice:
    return EmulatorDevice(cache_dir=emu_cache)


def line_of(op: Operator, text: str) -> int:
    path = next(p for p in op.sources if p.endswith(KERNEL_FILE))
    return next(i for i, row in enumerate(op.sources[path].text.splitlines(), 1) if text in row)


def test_the_shipped_tiling_passes_and_says_its_launch(op, device):
    assert op.manifest is not None
    s = device.screen(op, RunRequest(op.manifest.cases[0], knobs={"BLOCK_DIM": 8, "TILE_LENGTH": 1024}))
    assert s.ok and s.kind is None, s.reason
    assert s.block_dim == 8 and s.tiling_key == 0
    # block 0's InitBuffers, at the model's sites: what fits a tile knob's domain to the UB (search/domains.py)
    sites = {(b.file, b.line): (b.num, b.len) for b in s.buffers or []}
    path = next(p for p in op.sources if p.endswith(KERNEL_FILE))
    assert sites == {
        (path, line_of(op, "pipe.InitBuffer(inQueueX")): (2, 2048),
        (path, line_of(op, "pipe.InitBuffer(outQueueY")): (2, 2048),
    }


def test_init_buffers_over_the_ub_are_refused_at_the_init_buffer(op, device):
    """2 buffers x 2 queues x 65536 halves = 512 KiB, over the 192 KiB UB: refused at the first InitBuffer that
    crosses the end, before the kernel copies anything."""
    assert op.manifest is not None
    s = device.screen(op, RunRequest(op.manifest.cases[0], knobs={"BLOCK_DIM": 8, "TILE_LENGTH": 65536}))
    assert not s.ok and s.kind == "ub_overflow"
    assert s.file is not None and s.file.endswith(KERNEL_FILE)
    assert s.line == line_of(op, "pipe.InitBuffer(inQueueX")
    assert "exceeds the Unified Buffer" in (s.reason or "")


def test_an_unaligned_first_copy_is_refused_at_the_copy(op, device):
    """1000 halves are 2000 bytes: the device would drop the last 16 of every tile."""
    assert op.manifest is not None
    s = device.screen(op, RunRequest(op.manifest.cases[0], knobs={"BLOCK_DIM": 8, "TILE_LENGTH": 1000}))
    assert not s.ok and s.kind == "unaligned_copy", s
    assert s.line == line_of(op, "DataCopy(xLocal, xGm")
    assert "2000 bytes" in (s.reason or "")


def test_a_tiling_that_crashes_or_sets_block_dim_0_is_refused(op, device, tmp_path):
    """The shipped host divides by BLOCK_DIM: 0 crashes it. A host that guards the division sets blockDim 0."""
    assert op.manifest is not None
    s = device.screen(op, RunRequest(op.manifest.cases[0], knobs={"BLOCK_DIM": 0, "TILE_LENGTH": 1024}))
    assert not s.ok and s.kind == "tiling_failed" and "SIGFPE" in (s.reason or "")
    host = replace_once(TUNED_HOST, "total / blockDim", "total / (blockDim ? blockDim : 1)")
    guarded = load_operator(tuned_operator(tmp_path / "scale", host=host))
    s = device.screen(guarded, RunRequest(op.manifest.cases[0], knobs={"BLOCK_DIM": 0, "TILE_LENGTH": 1024}))
    assert not s.ok and s.kind == "tiling_failed" and "blockDim 0" in (s.reason or ""), s


def test_the_run_after_a_screening_reuses_its_build(tmp_path, device):
    """A kernel knob (a rebuild per value) in a kernel no other test builds: the screening compiles the
    configuration, and the run finds that build in the cache instead of compiling it again."""
    kernel = replace_once(
        KERNEL,
        "constexpr int32_t BUFFER_NUM = 2;",
        "constexpr int32_t BUFFER_NUM = 2;  // tilewise: tune BUFFER_NUM in [1, 2] (screen-build test)",
    )
    op = load_operator(tuned_operator(tmp_path / "scale", kernel=kernel))
    assert op.manifest is not None
    knobs = {"BLOCK_DIM": 8, "TILE_LENGTH": 1024, "BUFFER_NUM": 1}
    s = device.screen(op, RunRequest(op.manifest.cases[0], knobs=knobs))
    assert s.ok, s.reason
    m = device.run(op, RunRequest(op.manifest.cases[0], knobs=knobs))
    assert m.ok and m.correct, m.error
    assert m.cached_build
