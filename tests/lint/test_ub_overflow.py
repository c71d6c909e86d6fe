"""ub-overflow adds only buffers that one execution can hold together (issue 13).

A public kernel sized its scratch buffer per dtype in `if constexpr (is float)` / `if constexpr (!is float)`
branches; each branch fits the UB, their sum does not, and the rule reported the sum. Rebuilt on this project's
scale operator (tests/opgen.py) with if/else and with complementary conditions; an overflow on one path still fires.
"""

from __future__ import annotations

from pathlib import Path

from opgen import KERNEL, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator

INIT = "        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n"


def ub_overflow(root: Path):
    op = load_operator(root)
    assert not op.model.syntax_errors
    return [f for f in lint(op) if f.rule == "ub-overflow"]


def with_scratch(branches: str) -> str:
    kernel = replace_once(KERNEL, INIT, INIT + branches)
    return replace_once(kernel, "    TPipe pipe;\n", "    TPipe pipe;\n    TBuf<TPosition::VECCALC> calcBuf;\n")


def test_buffers_in_complementary_if_constexpr_branches_are_alternatives(tmp_path: Path):
    kernel = with_scratch(
        "        if constexpr (sizeof(half) == 4) {\n"
        "            pipe.InitBuffer(calcBuf, 120 * 1024);\n        }\n"
        "        if constexpr (!(sizeof(half) == 4)) {\n"
        "            pipe.InitBuffer(calcBuf, 100 * 1024);\n        }\n"
    )
    assert ub_overflow(write_operator(tmp_path / "op", kernel=kernel)) == []


def test_buffers_in_if_and_else_are_alternatives(tmp_path: Path):
    kernel = with_scratch(
        "        if (tileLength > 1024) {\n            pipe.InitBuffer(calcBuf, 100 * 1024);\n"
        "        } else {\n            pipe.InitBuffer(calcBuf, 120 * 1024);\n        }\n"
    )
    assert ub_overflow(write_operator(tmp_path / "op", kernel=kernel)) == []


def test_one_path_over_the_ub_still_fires(tmp_path: Path):
    # two independent conditions can both hold: 64 KB of queues + 100 KB + 120 KB on one path
    kernel = with_scratch(
        "        if (tileLength > 1024) {\n            pipe.InitBuffer(calcBuf, 100 * 1024);\n"
        "        }\n        if (blockLength > 1024) {\n"
        "            pipe.InitBuffer(calcBuf, 120 * 1024);\n        }\n"
    )
    (f,) = ub_overflow(write_operator(tmp_path / "op", kernel=kernel))
    assert f.severity == "error" and "290816 bytes" in f.message


def test_cube_buffers_in_l1_and_l0_are_not_ub(tmp_path: Path):
    # a matmul-style kernel's L1 (A1) and L0C (CO1) buffers are other memories: 512 KB of L1 is no UB overflow
    kernel = replace_once(
        KERNEL,
        INIT,
        INIT + "        pipe.InitBuffer(l1Buf, 512 * 1024);\n"
        "        pipe.InitBuffer(l0cBuf, 128 * 1024);\n        pipe.InitBuffer(tBuf, 150 * 1024);\n",
    )
    kernel = replace_once(
        kernel,
        "    TPipe pipe;\n",
        "    TPipe pipe;\n    TBuf<TPosition::A1> l1Buf;\n"
        "    TBuf<TPosition::CO1> l0cBuf;\n    TBuf<TPosition::VECCALC> tBuf;\n",
    )
    (f,) = ub_overflow(write_operator(tmp_path / "op", kernel=kernel))  # 64 KB of queues + 150 KB of tBuf
    assert "l1Buf" not in f.message and "l0cBuf" not in f.message and "219136 bytes" in f.message


def test_alternative_init_functions_setting_up_the_same_buffer_count_once(tmp_path: Path):
    # Init / InitWide both set up calcBuf (one runs per tiling key): the heavier one counts, not their sum
    kernel = with_scratch("        pipe.InitBuffer(calcBuf, 100 * 1024);\n")
    kernel = replace_once(
        kernel,
        "    __aicore__ inline void Process()\n",
        "    __aicore__ inline void InitWide()\n    {\n"
        "        pipe.InitBuffer(calcBuf, 120 * 1024);\n    }\n"
        "    __aicore__ inline void Process()\n",
    )
    assert ub_overflow(write_operator(tmp_path / "op", kernel=kernel)) == []
