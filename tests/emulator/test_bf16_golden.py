"""A bfloat16 output is judged against the golden's answer rounded to bfloat16, as a float16 one is.

numpy has no bfloat16, so a golden for bfloat16 tensors receives and returns float32 and cannot round its answer to
the output's precision the way a float16 golden does with astype. Judged against the unrounded answer, a kernel that
rounds an intermediate to bfloat16 (as RMSNorm kernels do before the gamma multiply) lands more than one unit in the
last place from it although it is within one unit of the rounded answer, the slack a float16 output gets. The kernel
here is written for this test: y = bf16(bf16(x * 3) * 1.375), both casts CAST_RINT (round to nearest, ties to even,
per the Cast reference), on inputs where both roundings are ties.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.analysis.operator import load_operator
from tilewise.device.dtypes import to_bf16_bits
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.golden import check_outputs, round_to
from tilewise.device.protocol import OutputCheck, RunRequest

HOST = """\
#include "register/op_def_registry.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    context->SetBlockDim(1);
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}
namespace ops {
class TwiceRounded : public OpDef {
public:
    explicit TwiceRounded(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_BF16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_BF16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(TwiceRounded);
}
"""

KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void twice_rounded(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    constexpr uint32_t N = 16;
    TPipe pipe;
    TBuf<TPosition::VECCALC> io, wide;
    pipe.InitBuffer(io, N * sizeof(bfloat16_t));
    pipe.InitBuffer(wide, N * sizeof(float));
    LocalTensor<bfloat16_t> v = io.Get<bfloat16_t>();
    LocalTensor<float> f = wide.Get<float>();
    GlobalTensor<bfloat16_t> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ bfloat16_t*)x, N);
    yGm.SetGlobalBuffer((__gm__ bfloat16_t*)y, N);
    DataCopy(v, xGm, N);
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Cast(f, v, RoundMode::CAST_NONE, N);
    PipeBarrier<PIPE_V>();
    Muls(f, f, 3.0f, N);
    PipeBarrier<PIPE_V>();
    Cast(v, f, RoundMode::CAST_RINT, N);  // the intermediate, rounded to bf16 as the device stores it
    PipeBarrier<PIPE_V>();
    Cast(f, v, RoundMode::CAST_NONE, N);
    PipeBarrier<PIPE_V>();
    Muls(f, f, 1.375f, N);
    PipeBarrier<PIPE_V>();
    Cast(v, f, RoundMode::CAST_RINT, N);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yGm, v, N);
}
"""

# x*3 = 5.109375 and 5.390625 sit halfway between bf16 neighbours (spacing 2^-5 in [4, 8)), ties go to the even
# 5.125 and 5.375; times 1.375 that is 7.046875 and 7.390625, again ties, to 7.0625 and 7.375. The exact answers
# 7.025390625 and 7.412109375 round to 7.03125 and 7.40625: one unit away from the kernel's result, and 0.037 (more
# than the unit 0.03125) from the unrounded answer. The other inputs are 1.0 (exactly 4.125 all the way).
X = [1.703125, 1.796875] + [1.0] * 14
Y = [7.0625, 7.375] + [4.125] * 14


def test_twice_rounded_bf16_kernel_is_within_one_unit_of_the_rounded_answer(tmp_path: Path, emu_cache, needs_gxx):
    root = tmp_path / "twice_rounded"
    for rel, text in {
        "op_host/twice_rounded.cpp": HOST,
        "op_kernel/twice_rounded.cpp": KERNEL,
        "golden.py": "def golden(x):\n    return x * 3.0 * 1.375\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    case = Case(name="c", inputs={"x": InputSpec(shape=[16], dtype="bfloat16")})
    m = EmulatorDevice(cache_dir=emu_cache, timeout_s=60).run(
        load_operator(root),
        RunRequest(
            case,
            golden=str(root / "golden.py:golden"),
            rtol=1e-3,
            atol=0.0,
            inputs={"x": np.array(X, dtype=np.float32)},
            keep_outputs=True,
        ),
    )
    assert m.ok, m.error
    assert m.produced_outputs()[0].tolist() == Y  # both casts rounded half to even
    assert m.correct and m.outputs[0].mismatches == 0, m.outputs


def test_bf16_check_rounds_the_answer_and_still_refuses_two_units():
    out = [OutputCheck(name="y", shape=[3], dtype="bfloat16")]
    exact = np.array([7.025390625, 7.412109375, 4.125])  # the goldens' float32 answers above
    got = to_bf16_bits(np.array([7.0625, 7.375, 4.125], dtype=np.float32))
    (ok,) = check_outputs(out, [got], [exact], rtol=1e-3, atol=0)
    assert ok.ok, ok
    far = to_bf16_bits(np.array([7.09375, 7.34375, 4.1875], dtype=np.float32))  # two units off the rounded answer
    (bad,) = check_outputs(out, [far], [exact], rtol=1e-3, atol=0)
    assert bad.mismatches == 3


def test_round_to_rounds_half_to_even_in_one_step():
    # 1 + 2^-8 is a bf16 tie (stays 1); 1 + 2^-8 + 2^-30 is not, though float32 would round it back to the tie.
    v = np.array([1 + 2.0**-8, 1 + 3 * 2.0**-8, 1 + 2.0**-8 + 2.0**-30, 2.0**-140, 3.4e38, np.nan])
    r = round_to(v, "bfloat16")
    assert r[:5].tolist() == [1.0, 1.015625, 1.0078125, 0.0, np.inf] and np.isnan(r[5])
    assert round_to(np.array([1 + 2.0**-11]), "float16").tolist() == [1.0]
    assert round_to(np.array([1 + 2.0**-11]), "float32").tolist() == [1 + 2.0**-11]
