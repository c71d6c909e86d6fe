"""The timing model against documented behaviour: double buffering, PIPE_ALL, copy size, blockDim, the roofline,
determinism, and every slow example slower than its fast twin with the bottleneck its motif addresses. Expectations
are stated in the chip file's own constants, so a recalibration does not need new numbers here."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from opgen import HOST, TILING_H, write_operator
from paths import EXAMPLES

from tilewise.analysis.chip import load_chip, timing_config
from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest

GIB = 1024**3

# y = 4x in fp32 through a tile loop; the knobs shape the pipeline (TILE = 6144 floats, 24 KiB, by default). Each
# Add reads one buffer only (x + x, then y + y), so no layout of the queues gives a UB bank conflict
# (tw/timing/ub_banks.h): these tests are about the pipeline, not the banks.
KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;
constexpr int32_t BUFFER_NUM = {buffers};
class KernelTriple {{
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t tileLength)
    {{
        this->blockLength = blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + blockLength * GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + blockLength * GetBlockIdx(), blockLength);
        {init}
    }}
    __aicore__ inline void Process()
    {{
        uint32_t loops = blockLength / tileLength;
        for (uint32_t i = 0; i < loops; i++) {{
            {body}
        }}
    }}
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
    TQueBind<QuePosition::VECIN, QuePosition::VECOUT, BUFFER_NUM> bindQueue;
    GlobalTensor<float> xGm, yGm;
    uint32_t blockLength, tileLength;
}};
extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{{
    GET_TILING_DATA(tilingData, tiling);
    KernelTriple op;
    op.Init(x, y, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}}
"""

SEPARATE_INIT = """pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(float));"""
SEPARATE_BODY = """LocalTensor<float> a = inQueueX.AllocTensor<float>();
            DataCopy(a, xGm[i * tileLength], tileLength);
            inQueueX.EnQue(a);
            LocalTensor<float> x = inQueueX.DeQue<float>();
            LocalTensor<float> y = outQueueY.AllocTensor<float>();
            Add(y, x, x, tileLength);
            Add(y, y, y, tileLength);
            outQueueY.EnQue<float>(y);
            inQueueX.FreeTensor(x);
            LocalTensor<float> z = outQueueY.DeQue<float>();
            DataCopy(yGm[i * tileLength], z, tileLength);
            outQueueY.FreeTensor(z);{barrier}"""
INPLACE_INIT = "pipe.InitBuffer(bindQueue, BUFFER_NUM, tileLength * sizeof(float));"
INPLACE_BODY = """LocalTensor<float> a = bindQueue.AllocTensor<float>();
            DataCopy(a, xGm[i * tileLength], tileLength);
            bindQueue.EnQue(a);
            LocalTensor<float> x = bindQueue.DeQue<float>();
            Add(x, x, x, tileLength);
            Add(x, x, x, tileLength);
            bindQueue.EnQue(x);
            LocalTensor<float> z = bindQueue.DeQue<float>();
            DataCopy(yGm[i * tileLength], z, tileLength);
            bindQueue.FreeTensor(z);"""

# The host takes blockDim and the tile length as attributes, so every timing case shares one host build.
TIMED_HOST = (
    HOST.replace(
        "uint32_t blockDim = BLOCK_DIM;", "uint32_t blockDim = *context->GetAttrs()->GetAttrPointer<int64_t>(0);"
    )
    .replace(
        "tiling.set_tileLength(TILE_LENGTH);",
        "tiling.set_tileLength(*context->GetAttrs()->GetAttrPointer<int64_t>(1));",
    )
    .replace(
        'this->Attr("scale").AttrType(OPTIONAL).Float(2.0);',
        'this->Attr("block_dim").AttrType(OPTIONAL).Int(1);\n        this->Attr("tile").AttrType(OPTIONAL).Int(6144);',
    )
    .replace("ge::DT_FLOAT16", "ge::DT_FLOAT")
)


def timed(
    tmp_path: Path,
    emu_cache: Path,
    *,
    buffers=2,
    inplace=False,
    pipe_all=False,
    tile=6144,
    block_dim=1,
    tiles=32,
    chip="910B2",
):
    barrier = "\n            PipeBarrier<PIPE_ALL>();" if pipe_all else ""
    kernel = KERNEL.format(
        buffers=buffers,
        init=INPLACE_INIT if inplace else SEPARATE_INIT,
        body=INPLACE_BODY if inplace else SEPARATE_BODY.format(barrier=barrier),
    )
    # One directory for every variant: builds are keyed by content and path, so the host object is shared.
    root = write_operator(
        emu_cache.parent / "timing-operator" / "scale", kernel=kernel, host=TIMED_HOST, tiling_h=TILING_H
    )
    case = Case(
        name="t",
        inputs={"x": InputSpec(shape=[block_dim * tile * tiles], dtype="float32")},
        attrs={"block_dim": block_dim, "tile": tile},
    )
    m = EmulatorDevice(chip=chip, cache_dir=emu_cache).run(load_operator(root), RunRequest(case))
    assert m.ok and m.error is None, m.error
    return m


def kernel_us(m) -> float:
    return m.time_us - m.launch_us


def stage_sum(m) -> float:
    return sum(m.pipes[k].busy_us for k in ("vector", "mte2", "mte3"))


def latency_us(*names: str) -> float:
    chip = load_chip("910B2")
    t = timing_config(chip)
    return sum(getattr(t, f"{name}_latency_cycles") for name in names) / (chip.clock_ghz * 1e3)


def test_double_buffering_overlaps_the_stages(tmp_path, emu_cache, needs_gxx):
    double = timed(tmp_path, emu_cache, buffers=2)
    longest = max(double.pipes[k].busy_us for k in ("vector", "mte2", "mte3"))
    # The stages overlap: well under their sum. Not down to the longest one: with two buffers, a buffer comes back
    # for the next copy only after its copy's latency and the compute on it, which 24 KiB copies do not hide.
    assert longest < kernel_us(double) < 0.7 * stage_sum(double), double.pipes
    # One buffer carrying each tile in, through compute and out: every stage and its completion latency in turn.
    serial = timed(tmp_path, emu_cache, buffers=1, inplace=True)
    assert kernel_us(serial) > stage_sum(serial) + 32 * latency_us("mte2", "mte3"), serial.pipes
    # Separate in and out queues with one buffer each: copy-out of tile i overlaps copy-in of tile i+1.
    single = timed(tmp_path, emu_cache, buffers=1)
    assert double.time_us < single.time_us < serial.time_us


def test_pipe_all_in_the_loop_costs_the_sum_of_the_stages(tmp_path, emu_cache, needs_gxx):
    free = timed(tmp_path, emu_cache)
    full = timed(tmp_path, emu_cache, pipe_all=True)
    # Every tile: copy in, two dependent Adds, copy out, each waiting for the last to complete.
    exposed = 32 * latency_us("mte2", "vector", "vector", "mte3")
    assert stage_sum(full) < kernel_us(full) < 1.05 * (stage_sum(full) + exposed), (kernel_us(full), stage_sum(full))
    assert kernel_us(full) > 2.5 * kernel_us(free)


def achieved_gibps(m, tile_bytes_total: int) -> float:
    return tile_bytes_total / (m.pipes["mte2"].busy_us * 1e-6) / GIB


def test_large_copies_run_at_the_core_rate_and_small_ones_at_the_issue_cost(tmp_path, emu_cache, needs_gxx):
    chip = load_chip("910B2")
    t = timing_config(chip)
    big = timed(tmp_path, emu_cache, tile=4096, tiles=8)  # 16 KiB copies
    small = timed(tmp_path, emu_cache, tile=128, tiles=256)  # 512-byte copies
    total = 4096 * 8 * 4
    assert achieved_gibps(big, total) == pytest.approx(t.dma_peak_gibps, rel=0.02)
    # however small, a copy occupies MTE2 for the issue cost (the data_copy sample's 128-byte tiles)
    issue_bound = 512 / (t.dma_issue_cycles / (chip.clock_ghz * 1e9)) / GIB
    assert achieved_gibps(small, total) == pytest.approx(issue_bound, rel=0.02)
    # and a loop that waits for each one also waits for its latency: small tiles are slow end to end
    assert kernel_us(small) > 256 * latency_us("mte2") / 2 > kernel_us(big)


def test_more_cores_help_until_hbm_binds(tmp_path, emu_cache, needs_gxx):
    times = {}
    for cores in (1, 2, 4, 8, 16, 40):
        m = timed(tmp_path, emu_cache, tile=8192, tiles=96 // cores if cores <= 96 else 1, block_dim=cores)
        times[cores] = m.time_us - m.launch_us
    assert times[1] > times[2] > times[4] > times[8], times
    assert times[1] / times[8] > 4, times
    assert times[16] / times[40] < 1.3, times  # HBM-bound: more cores barely help


def test_well_tiled_memory_bound_op_is_near_the_roofline(tmp_path, emu_cache, needs_gxx):
    chip = load_chip("910B2")
    m = timed(tmp_path, emu_cache, tile=8192, tiles=16, block_dim=48)
    # the output (25 MB) stays in L2, so HBM serves the reads only
    reads = 48 * 8192 * 16 * 4
    roofline_us = reads / (chip.hbm_gbps * 1e9) * 1e6 + m.launch_us
    assert roofline_us <= m.time_us < 1.25 * roofline_us, (m.time_us, roofline_us)


def test_same_input_same_cycles(tmp_path, emu_cache, needs_gxx):
    a = timed(tmp_path, emu_cache, buffers=1)
    b = timed(tmp_path / "again", emu_cache, buffers=1)
    assert a.cycles == b.cycles and a.pipes == b.pipes


SLOW_BOTTLENECK = {
    "add_custom_slow_single_buffer": "mte2",
    "add_custom_slow_pipe_all": "mte2",
    "add_custom_slow_tiny_tiles": "mte2",
    "add_custom_slow_block_dim_1": "mte2",
    "leaky_relu_slow_scalar_loop": "scalar",
}
# rms_norm_slow_datacopypad_aligned is not among them: the data_copy sample measures no per-row cost to speak of
# for DataCopyPad (pad_row_cycles), so the model puts it level with its DataCopy twin.


@pytest.mark.parametrize("slow", sorted(SLOW_BOTTLENECK))
def test_slow_examples_are_slower_than_their_fast_twins(slow, emu_cache, needs_gxx):
    slow_op = load_operator(EXAMPLES / slow)
    twin = load_operator((EXAMPLES / slow / slow_op.manifest.operator.twin).resolve())
    device = EmulatorDevice(cache_dir=emu_cache)
    # The largest case: on tiny inputs one core and one tile can win (launch overhead grows with the core count).
    case = max(slow_op.manifest.cases, key=lambda c: sum(math.prod(i.shape) for i in c.inputs.values()))
    s = device.run(slow_op, RunRequest(case))
    f = device.run(twin, RunRequest(twin.manifest.case(case.name)))
    assert s.ok and f.ok and s.correct and f.correct, (s.error, f.error)
    assert s.time_us > 1.01 * f.time_us, (case.name, s.time_us, f.time_us)
    assert s.bottleneck == SLOW_BOTTLENECK[slow], s.pipes
