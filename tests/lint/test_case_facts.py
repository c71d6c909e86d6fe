"""tilewise.device.facts.case_facts runs each case once and reports what lint rules need as facts: block 0's InitBuffers
(site, buffers, bytes asked), per-site calls in the busiest block (EnQue/DeQue count the tiles a queue streams),
blockDim and the UB the run had. A case that fails gives no facts and one line saying why. On the small scale
operator of tests/opgen.py (48 blocks, tiles of 8192 halves)."""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, KERNEL, replace_once, write_operator

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.facts import case_facts

SINGLE = replace_once(KERNEL, "constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;")


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_case_facts_report_buffers_tiles_and_blocks(emu_cache: Path, needs_gxx):
    root = write_operator(emu_cache.parent / "facts-operator", kernel=SINGLE, host=HOST)
    op = load_operator(root)
    device = EmulatorDevice(cache_dir=emu_cache, timeout_s=60)
    three_tiles = Case(name="three", inputs={"x": InputSpec(shape=[48 * 8192 * 3], dtype="float16")})
    broken = Case(name="broken", inputs={"x": InputSpec(shape=[48 * 8192], dtype="int8")})  # no such dtype
    problems: list[str] = []
    [facts] = case_facts(device, op, [three_tiles, broken], problems)
    kernel = str(root / "op_kernel" / "scale.cpp")
    assert facts.case == "three" and facts.block_dim == 48
    assert facts.ub_capacity == device.chip.ub_bytes
    init_x = line_of(SINGLE, "InitBuffer(inQueueX")
    assert {(b.file, b.line, b.num, b.bytes) for b in facts.buffers} == {
        (kernel, init_x, 1, 8192 * 2),
        (kernel, init_x + 1, 1, 8192 * 2),
    }
    # Each block streams three tiles: the copy-in's EnQue, the compute's DeQue and the copy-out run three times.
    assert facts.site_calls[(kernel, line_of(SINGLE, "inQueueX.EnQue(xLocal)"))] == 3
    assert facts.site_calls[(kernel, line_of(SINGLE, "inQueueX.DeQue<half>()"))] == 3
    assert facts.site_calls[(kernel, line_of(SINGLE, "DataCopy(yGm["))] == 3
    assert facts.time_us is not None and facts.time_us > 0
    assert facts.ub_used() == 2 * 8192 * 2
    # The ceiling for overlapping the pipes: above 1 (they do not overlap fully with one buffer), and bounded by
    # the busiest pipe, which is busy at least a third of the span when three stages run one after another.
    assert set(facts.pipe_ratio) >= {"mte2", "mte3", "vector"} and 0 < facts.launch_us < facts.time_us
    bound = facts.overlap_bound()
    assert bound is not None and 1.0 < bound < 3.0
    [line] = problems
    assert line.startswith("case broken: no facts, the run failed")
