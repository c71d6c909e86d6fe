"""The preprocessor reads the `#if` branch the device compiler compiles (issue 12): the NPU code beside a CPU-debug
twin, the 910B (`__CCE_AICORE__ == 220`) variant, the vector side of a mix kernel; the first branch where the
condition is undecidable. Every snippet here is written for this project."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from opgen import write_operator

from tilewise.analysis.operator import load_operator
from tilewise.analysis.preprocess import preprocess
from tilewise.analysis.preprocess.conditionals import DEVICE_DEFINES, DEVICE_UNDEFINED, evaluate
from tilewise.analysis.source import SourceFile


@pytest.mark.parametrize(
    ("condition", "value"),
    [
        ("defined(ASCENDC_CPU_DEBUG)", 0),
        ("!defined(ASCENDC_CPU_DEBUG)", 1),
        ("defined __CCE_AICORE__", 1),
        ("__CCE_AICORE__ == 220", 1),
        ("__CCE_AICORE__ >= 200 && __CCE_AICORE__ < 300", 1),
        ("(__CCE_AICORE__ == 100) || (__CCE_AICORE__ == 200)", 0),
        ("defined(__CCE_KT_TEST__) || (defined(__CCE_AICORE__) && __CCE_AICORE__ == 220)", 1),
        ("__CCE_KT_TEST__", 0),  # an identifier known to be undefined reads as 0
        ("__DAV_C220_VEC__", 1),
        ("defined(__DAV_C220_CUBE__)", 0),
        ("0x10 == 16 && 010 == 8 && 220U == 220", 1),
        ("1 ? 2 : 3", 2),
        ("-1 < 0 && (7 / 2) == 3 && (7 % 4) == 3", 1),
        ("USER_FLAG", None),  # may come from -D or an include: undecidable
        ("defined(USER_FLAG) && __CCE_AICORE__ == 220", None),
        ("defined(USER_FLAG) && __CCE_AICORE__ == 100", 0),  # false whatever USER_FLAG is
        ("USER_FLAG || !defined(ASCENDC_CPU_DEBUG)", 1),
        ("HAS_FEATURE(x)", None),  # a function-like macro: its expansion is not known
        ("__CCE_AICORE__ == 220 // a comment", 1),
        ("__CCE_AICORE__ == /* chip */ 220", 1),
        ("1 / 0", None),
        ("", None),
    ],
)
def test_conditions_evaluate_under_the_device_configuration(condition, value):
    assert evaluate(condition.encode()) == value


def kept(src: str) -> list[str]:
    """The words tree-sitter gets to read (directive lines and blanked branches are spaces)."""
    pre = preprocess(src.encode())
    assert len(pre.text) == len(src.encode()) and pre.text.count(b"\n") == src.count("\n")
    return re.findall(r"\w+", pre.text.decode())


def test_the_npu_branch_beside_a_cpu_debug_twin_is_read():
    src = (
        "#if defined(ASCENDC_CPU_DEBUG)\nint cpu_a;\n#else\nint npu_a;\n#endif\n"
        "#ifdef ASCENDC_CPU_DEBUG\nint cpu_b;\n#elif 0\nint never;\n#else\nint npu_b;\n#endif\n"
        "#ifndef __CCE_KT_TEST__\nint npu_c;\n#else\nint kt_c;\n#endif\n"
        "#if !defined(ASCENDC_CPU_DEBUG)\nint npu_d;\n#endif\n"
    )
    assert [w for w in kept(src) if w != "int"] == ["npu_a", "npu_b", "npu_c", "npu_d"]


def test_chip_variants_and_the_vector_side_of_a_mix_kernel():
    src = (
        "#if __CCE_AICORE__ == 100\nint v100;\n#elif __CCE_AICORE__ == 200\nint v200;\n"
        "#elif (__CCE_AICORE__ >= 220)\nint v220;\n#else\nint other;\n#endif\n"
        "#ifdef __DAV_C220_CUBE__\nint cube;\n#elif __DAV_C220_VEC__\nint vec;\n#endif\n"
        "#if defined(__CCE_AICORE__) && __CCE_AICORE__ != 220\nint not220;\n#endif\n"
    )
    assert [w for w in kept(src) if w != "int"] == ["v220", "vec"]


def test_macros_defined_earlier_in_the_file_decide_later_conditions():
    src = (
        "#define USE_FAST 1\n#define LEVEL (2)\n#undef __CCE_AICORE__\n"
        "#if USE_FAST && LEVEL >= 2\nint fast;\n#else\nint slow;\n#endif\n"
        "#ifdef __CCE_AICORE__\nint undefined_above;\n#else\nint gone;\n#endif\n"
        "#if 0\n#undef LEVEL\n#define LEVEL 5\n#endif\n#if LEVEL == 5\nint hidden;\n#else\nint shown;\n#endif\n"
    )
    words = [w for w in kept(src) if w not in ("int", "define", "undef")]
    assert words == ["USE_FAST", "1", "LEVEL", "2", "__CCE_AICORE__", "fast", "gone", "shown"]


def test_macros_that_square_each_other_stay_within_64_bits():
    # benchmarks/fuzz_lsp.py's macro storm: each level squares the one before, so the 40th holds 2**(2**40) bits
    # and the server hung computing it. The preprocessor computes in 64 bits; past them the value is unknown.
    src = "#define P0 3\n" + "".join(f"#define P{i} (P{i - 1} * P{i - 1} + 1)\n" for i in range(1, 40))
    src += "#if P39 > 2\nint first;\n#else\nint second;\n#endif\n"
    assert "first" in kept(src)  # undecidable: the first branch, as for any condition tilewise cannot decide
    assert evaluate(b"(1 << 63) * 4") is None
    assert evaluate(b"(1 << 40) * 4 == 4398046511104") == 1


def test_an_undecidable_condition_keeps_its_first_branch_and_nesting_follows_the_outer_choice():
    src = (
        "#ifdef USER_FLAG\nint first;\n#else\nint second;\n#endif\n"
        "#if defined(ASCENDC_CPU_DEBUG)\n#ifdef USER_FLAG\nint cpu_nested;\n#endif\n#else\n"
        "#if __CCE_AICORE__ == 220\nint npu_nested;\n#else\nint npu_other;\n#endif\n#endif\n"
        "#if 0\nint off;\n#else\n#endif\nint after;\n"
    )
    assert [w for w in kept(src) if w != "int"] == ["first", "npu_nested", "after"]


def test_a_continued_condition_is_one_directive():
    src = "#if defined(__CCE_AICORE__) && \\\n    __CCE_AICORE__ == 100\nint old;\n#else\nint new_one;\n#endif\n"
    assert [w for w in kept(src) if w != "int"] == ["new_one"]
    assert list(SourceFile("k.cpp", src).errors()) == []


def test_a_comment_that_starts_on_a_directive_line_stays_a_comment():
    src = "#ifndef __CCE_KT_TEST__ /* device\n   build only */\nint dev;\n#endif\n"
    sf = SourceFile("k.cpp", src)
    assert list(sf.errors()) == []
    assert [w for w in kept(src) if w != "int"] == ["device", "build", "only", "dev"]


def test_what_an_inactive_branch_declares_is_not_marked():
    src = (
        "#ifdef __CCE_KT_TEST__\nBEGIN_TILING_DATA_DEF(CpuTiling)\nTILING_DATA_FIELD_DEF(uint32_t, cpuOnly);\n"
        "END_TILING_DATA_DEF;\n#else\nBEGIN_TILING_DATA_DEF(NpuTiling)\nTILING_DATA_FIELD_DEF(uint32_t, n);\n"
        "END_TILING_DATA_DEF;\n#endif\n"
    )
    marks = preprocess(src.encode()).marks
    fields = [m.args[-1].text for m in marks if m.kind == "tiling_field"]
    assert fields == ["n"]
    assert [m.args[0].text for m in marks if m.kind == "tiling_begin"] == ["NpuTiling"]


KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;
constexpr int32_t BUFFER_NUM = 2;

class KernelBranches {
public:
    __aicore__ inline KernelBranches() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t tileLength)
    {
#if defined(ASCENDC_CPU_DEBUG)
        pipe.InitBuffer(debugBuf, 64);
#else
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(half));
#endif
#if __CCE_AICORE__ == 200
        pipe.InitBuffer(outQueueY, 1, tileLength * sizeof(half));
#elif __CCE_AICORE__ == 220
        pipe.InitBuffer(outQueueY, BUFFER_NUM, tileLength * sizeof(half));
#endif
    }

private:
    TPipe pipe;
#ifndef __CCE_KT_TEST__
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;
#else
    TBuf<TPosition::VECCALC> debugBuf;
#endif
};

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelBranches op;
    op.Init(x, y, tilingData.tileLength);
}
"""


def test_the_model_reads_queues_and_init_buffers_in_else_and_elif_branches(tmp_path: Path):
    op = load_operator(write_operator(tmp_path / "scale", kernel=KERNEL))
    model = op.model
    assert model.syntax_errors == []
    assert {q.name: q.depth for q in model.queues} == {"inQueueX": 2, "outQueueY": 2}
    assert {b.queue: b.num.text for b in model.init_buffers} == {"inQueueX": "BUFFER_NUM", "outQueueY": "BUFFER_NUM"}
    lines = KERNEL.splitlines()
    for b in model.init_buffers:
        assert b.queue in lines[b.loc.line - 1]  # positions are those of the user's text


def test_the_model_configuration_is_what_the_emulator_compiles_with():
    from tilewise.device.emulator.build import KERNEL_FLAGS

    emulator = {}
    for flag in KERNEL_FLAGS:
        if flag.startswith("-D"):
            name, _, value = flag[2:].partition("=")
            emulator[name] = int(value or "1")
        assert not flag.startswith("-U")
    for name, value in emulator.items():
        assert DEVICE_DEFINES.get(name) == value, name
    assert not set(emulator) & DEVICE_UNDEFINED
    # and nothing the model takes as defined is missing from the emulator's build (g++ defines __cplusplus)
    assert set(DEVICE_DEFINES) - set(emulator) == {"__cplusplus"}
