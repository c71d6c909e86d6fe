"""Every lint rule fires on a purpose-built bad variant, stays quiet on the good operator, and its fix works."""

from __future__ import annotations

from pathlib import Path

import pytest
from opgen import HOST, KERNEL, TILING_H, replace_once, write_operator

from tilewise.analysis.chip import load_chip
from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator
from tilewise.analysis.rewrite import apply_fix
from tilewise.analysis.rules import ALL_RULES, RULES_BY_ID


def findings(root: Path, rule: str, chip: str | None = None):
    op = load_operator(root)
    assert not op.model.syntax_errors, op.model.syntax_errors
    return [f for f in lint(op, load_chip(chip)) if f.rule == rule]


def fix_and_recheck(root: Path, rule: str) -> list:
    """Apply the first finding's first fix to disk and return the rule's findings afterwards."""
    found = findings(root, rule)
    assert found and found[0].fixes, f"{rule} offered no fix"
    apply_fix(found[0].fixes[0], write=True)
    return findings(root, rule)


def test_good_operator_is_clean(op_dir: Path):
    op = load_operator(op_dir)
    assert lint(op) == []


def test_at_least_ten_rules_each_in_its_own_module():
    assert len(ALL_RULES) >= 10
    modules = {type(r).__module__ for r in ALL_RULES}
    assert len(modules) == len(ALL_RULES)
    assert all(r.id and r.summary for r in ALL_RULES)


# ---- pipe-all-in-loop --------------------------------------------------------------------------------------------
def test_pipe_all_in_loop_fires_and_fix_removes_the_line(tmp_path: Path):
    kernel = replace_once(
        KERNEL, "            CopyOut(i);\n", "            CopyOut(i);\n            PipeBarrier<PIPE_ALL>();\n"
    )
    root = write_operator(tmp_path / "op", kernel=kernel)
    (f,) = findings(root, "pipe-all-in-loop")
    assert f.line == KERNEL.splitlines().index("            CopyOut(i);") + 2
    assert "up to 3x on the tile loop" in f.fixes[0].title  # copy-in, Muls and copy-out stop overlapping
    assert fix_and_recheck(root, "pipe-all-in-loop") == []
    assert (root / "op_kernel" / "scale.cpp").read_text() == KERNEL


def test_pipe_all_in_a_method_called_from_the_loop_fires(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        inQueueX.EnQue(xLocal);\n",
        "        PipeBarrier<PIPE_ALL>();\n        inQueueX.EnQue(xLocal);\n",
    )
    assert len(findings(write_operator(tmp_path / "op", kernel=kernel), "pipe-all-in-loop")) == 1


def test_pipe_all_outside_loops_and_pipe_v_in_loop_are_quiet(tmp_path: Path):
    kernel = replace_once(KERNEL, "    op.Process();\n", "    op.Process();\n    PipeBarrier<PIPE_ALL>();\n")
    kernel = replace_once(
        kernel, "            Compute();\n", "            Compute();\n            PipeBarrier<PIPE_V>();\n"
    )
    assert findings(write_operator(tmp_path / "op", kernel=kernel), "pipe-all-in-loop") == []


# ---- single-buffer -----------------------------------------------------------------------------------------------
def test_single_buffer_fires_on_the_constant_and_fix_sets_two(tmp_path: Path):
    kernel = replace_once(KERNEL, "constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;")
    root = write_operator(tmp_path / "op", kernel=kernel)
    (f,) = findings(root, "single-buffer")
    assert (f.line, f.col) == (4, 32)
    assert "up to 3x on the tile loop" in f.fixes[0].title  # copy-in, vector, copy-out overlap
    assert fix_and_recheck(root, "single-buffer") == []
    assert "constexpr int32_t BUFFER_NUM = 2;" in (root / "op_kernel" / "scale.cpp").read_text()


def test_single_buffer_literal_in_init_buffer(tmp_path: Path):
    kernel = replace_once(KERNEL, "pipe.InitBuffer(inQueueX, BUFFER_NUM,", "pipe.InitBuffer(inQueueX, 1,")
    root = write_operator(tmp_path / "op", kernel=kernel)
    assert len(findings(root, "single-buffer")) == 1
    assert fix_and_recheck(root, "single-buffer") == []


def test_single_buffer_outside_a_loop_is_quiet(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        for (uint32_t i = 0; i < loops; i++) {\n            CopyIn(i);\n"
        "            Compute();\n            CopyOut(i);\n        }\n",
        "        CopyIn(0);\n        Compute();\n        CopyOut(0);\n",
    )
    kernel = replace_once(kernel, "constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;")
    assert findings(write_operator(tmp_path / "op", kernel=kernel), "single-buffer") == []


# The layout most public samples copy: everything qualified with `AscendC::`, the input queues in one declaration.
SAMPLE_STYLE_KERNEL = """\
#include "kernel_operator.h"

constexpr int32_t BUFFER_NUM = 1;

class KernelPairAdd {
public:
    __aicore__ inline KernelPairAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t tileLength)
    {
        this->blockLength = blockLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ half*)x + blockLength * AscendC::GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ half*)y + blockLength * AscendC::GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(half));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, this->tileLength * sizeof(half));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, this->tileLength * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        uint32_t loops = blockLength / tileLength;
        for (uint32_t i = 0; i < loops; i++) {
            CopyIn(i);
            Compute();
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t progress)
    {
        AscendC::LocalTensor<half> a = inQueueX.AllocTensor<half>();
        AscendC::LocalTensor<half> b = inQueueY.AllocTensor<half>();
        AscendC::DataCopy(a, xGm[progress * tileLength], tileLength);
        AscendC::DataCopy(b, xGm[progress * tileLength], tileLength);
        inQueueX.EnQue(a);
        inQueueY.EnQue(b);
    }
    __aicore__ inline void Compute()
    {
        AscendC::LocalTensor<half> a = inQueueX.DeQue<half>();
        AscendC::LocalTensor<half> b = inQueueY.DeQue<half>();
        AscendC::LocalTensor<half> c = outQueueZ.AllocTensor<half>();
        AscendC::Add(c, a, b, tileLength);
        outQueueZ.EnQue<half>(c);
        inQueueX.FreeTensor(a);
        inQueueY.FreeTensor(b);
    }
    __aicore__ inline void CopyOut(uint32_t progress)
    {
        AscendC::LocalTensor<half> c = outQueueZ.DeQue<half>();
        AscendC::DataCopy(yGm[progress * tileLength], c, tileLength);
        outQueueZ.FreeTensor(c);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    AscendC::GlobalTensor<half> xGm;
    AscendC::GlobalTensor<half> yGm;
    uint32_t blockLength;
    uint32_t tileLength;
};

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelPairAdd op;
    op.Init(x, y, tilingData.blockLength, tilingData.tileLength);
    op.Process();
}
"""


def test_single_buffer_speaks_on_the_sample_style_qualified_declaration(tmp_path: Path):
    root = write_operator(tmp_path / "op", kernel=SAMPLE_STYLE_KERNEL)
    queues = {q.name: q for q in load_operator(root).model.queues}
    assert {n: (q.position, q.depth) for n, q in queues.items()} == {
        "inQueueX": ("VECIN", 1),
        "inQueueY": ("VECIN", 1),
        "outQueueZ": ("VECOUT", 1),
    }
    (f,) = findings(root, "single-buffer")  # one finding for the one constant all three queues share
    assert (f.line, f.col) == (3, 32)
    assert fix_and_recheck(root, "single-buffer") == []
    assert "constexpr int32_t BUFFER_NUM = 2;" in (root / "op_kernel" / "scale.cpp").read_text()


# ---- aligned-datacopypad -----------------------------------------------------------------------------------------
PAD_IN = (
    "        DataCopyExtParams params{1, static_cast<uint32_t>(TILE * sizeof(half)), 0, 0, 0};\n"
    "        DataCopyPadExtParams<half> pad{false, 0, 0, 0};\n"
    "        DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);\n"
)


def test_aligned_datacopypad_fires_and_fix_uses_datacopy(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "constexpr int32_t BUFFER_NUM = 2;\n",
        "constexpr int32_t BUFFER_NUM = 2;\nconstexpr uint32_t TILE = 8192;\n",
    )
    kernel = replace_once(kernel, "        DataCopy(xLocal, xGm[progress * tileLength], tileLength);\n", PAD_IN)
    root = write_operator(tmp_path / "op", kernel=kernel)
    (f,) = findings(root, "aligned-datacopypad")
    assert "saves about 0.5 cycles per row" in f.fixes[0].title  # the chip's DataCopyPad row overhead
    assert fix_and_recheck(root, "aligned-datacopypad") == []
    assert "DataCopy(xLocal, xGm[progress * tileLength], TILE);" in (root / "op_kernel" / "scale.cpp").read_text()


def test_datacopypad_on_unknown_or_unaligned_length_is_quiet(tmp_path: Path):
    for tile in ("8191", "tileLength"):
        kernel = replace_once(
            KERNEL,
            "constexpr int32_t BUFFER_NUM = 2;\n",
            f"constexpr int32_t BUFFER_NUM = 2;\nconstexpr uint32_t TILE = {tile};\n",
        )
        kernel = replace_once(kernel, "        DataCopy(xLocal, xGm[progress * tileLength], tileLength);\n", PAD_IN)
        assert findings(write_operator(tmp_path / tile, kernel=kernel), "aligned-datacopypad") == []


# ---- scalar-loop -------------------------------------------------------------------------------------------------
def test_scalar_loop_fires_and_simple_pattern_is_vectorised(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        for (uint32_t j = 0; j < tileLength; j++) {\n"
        "            yLocal.SetValue(j, xLocal.GetValue(j) * (half)2.0);\n"
        "        }\n",
    )
    root = write_operator(tmp_path / "op", kernel=kernel)
    (f,) = findings(root, "scalar-loop")
    assert "one element at a time" in f.message
    gain = float(f.fixes[0].title.split("(about ")[1].split("x faster")[0])
    assert 100 < gain < 10_000  # 128 scalar round trips through UB against one vector repeat
    assert fix_and_recheck(root, "scalar-loop") == []
    assert "Muls(yLocal, xLocal, (half)2.0, tileLength);" in (root / "op_kernel" / "scale.cpp").read_text()


def test_scalar_loop_without_rewrite_still_reported(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        for (uint32_t j = 0; j < tileLength; j++) {\n"
        "            float v = xLocal.GetValue(j);\n"
        "            yLocal.SetValue(j, v > 0 ? v : 0);\n"
        "        }\n",
    )
    (f,) = findings(write_operator(tmp_path / "op", kernel=kernel), "scalar-loop")
    assert f.fixes == []


def test_single_getvalue_outside_element_loop_is_quiet(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        half first = xLocal.GetValue(0);\n        Muls(yLocal, xLocal, first, tileLength);\n",
    )
    assert findings(write_operator(tmp_path / "op", kernel=kernel), "scalar-loop") == []


# ---- small-copy --------------------------------------------------------------------------------------------------
def test_small_copy_fires_on_tile_constant_through_tiling_and_fix_enlarges(tmp_path: Path):
    host = replace_once(HOST, "constexpr uint32_t TILE_LENGTH = 8192;", "constexpr uint32_t TILE_LENGTH = 64;")
    root = write_operator(tmp_path / "op", host=host)
    (f,) = findings(root, "small-copy")
    assert f.file.endswith("op_host/scale.cpp") and f.line == 5
    assert "128 bytes" in f.message
    assert fix_and_recheck(root, "small-copy") == []
    assert "TILE_LENGTH = 8192;" in (root / "op_host" / "scale.cpp").read_text()


def test_small_copy_quiet_for_count_knobs_and_big_tiles(tmp_path: Path):
    host = replace_once(HOST, "constexpr uint32_t TILE_LENGTH = 8192;", "constexpr uint32_t TILE_NUM = 8;")
    host = replace_once(host, "tiling.set_tileLength(TILE_LENGTH);", "tiling.set_tileLength(total / TILE_NUM);")
    assert findings(write_operator(tmp_path / "op", host=host), "small-copy") == []


def test_small_copy_ignores_a_zero_length_constant(tmp_path: Path):
    """Found on a public operator: a tile constant of 0 made the fix's doubling loop run forever (the lint, and so
    the language server's analysis, hung). Run in a child process with a generous limit, so a regression fails."""
    import subprocess
    import sys

    host = replace_once(HOST, "constexpr uint32_t TILE_LENGTH = 8192;", "constexpr uint32_t TILE_LENGTH = 0;")
    root = write_operator(tmp_path / "op", host=host)
    code = (
        "from tilewise.analysis.lint import lint; from tilewise.analysis.operator import load_operator; "
        f"print(sorted(f.rule for f in lint(load_operator({str(root)!r}))))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "small-copy" not in proc.stdout


# ---- low-block-dim -----------------------------------------------------------------------------------------------
def test_low_block_dim_fires_through_local_variable_and_fix_uses_all_cores(tmp_path: Path):
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 1;")
    root = write_operator(tmp_path / "op", host=host)
    (f,) = findings(root, "low-block-dim")
    assert f.line == 4 and "1 of the 48" in f.message
    assert fix_and_recheck(root, "low-block-dim") == []


def test_knobs_marked_tuned_are_left_alone(tmp_path: Path):
    """An applied tune measured these values: the rules that would second-guess them stay quiet."""
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 8;")
    host = replace_once(host, "constexpr uint32_t TILE_LENGTH = 8192;", "constexpr uint32_t TILE_LENGTH = 256;")
    root = write_operator(tmp_path / "op", host=host)
    assert findings(root, "low-block-dim") and findings(root, "small-copy")
    marked = host.replace("BLOCK_DIM = 8;", "BLOCK_DIM = 8;  // tilewise: tuned")
    marked = marked.replace("TILE_LENGTH = 256;", "TILE_LENGTH = 256;  // cores x tiles (tilewise: tuned)")
    root = write_operator(tmp_path / "marked", host=marked)
    assert findings(root, "low-block-dim") == [] and findings(root, "small-copy") == []


def test_low_block_dim_is_chip_aware(tmp_path: Path):
    host = replace_once(HOST, "constexpr uint32_t BLOCK_DIM = 48;", "constexpr uint32_t BLOCK_DIM = 40;")
    root = write_operator(tmp_path / "op", host=host)
    assert findings(root, "low-block-dim", chip="910B3") == []
    assert len(findings(root, "low-block-dim", chip="910B2")) == 1


def test_low_block_dim_literal_set_block_dim(tmp_path: Path):
    host = replace_once(HOST, "context->SetBlockDim(blockDim);", "context->SetBlockDim(4);")
    (f,) = findings(write_operator(tmp_path / "op", host=host), "low-block-dim")
    assert f.fixes and f.fixes[0].edits[0].new_text == "48"


# ---- ub-overflow -------------------------------------------------------------------------------------------------
def test_ub_overflow_fires_when_sizes_evaluate(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "this->tileLength * sizeof(half));\n        pipe.InitBuffer(outQueueY",
        "65536 * sizeof(half));\n        pipe.InitBuffer(outQueueY",
    )
    (f,) = findings(write_operator(tmp_path / "op", kernel=kernel), "ub-overflow")
    assert "294912 bytes" in f.message and "inQueueX 262144" in f.message and f.severity == "error"


def test_ub_within_capacity_is_quiet(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "this->tileLength * sizeof(half));\n        pipe.InitBuffer(outQueueY",
        "16384 * sizeof(half));\n        pipe.InitBuffer(outQueueY",
    )
    assert findings(write_operator(tmp_path / "op", kernel=kernel), "ub-overflow") == []


# ---- tiling-field-mismatch ---------------------------------------------------------------------------------------
def test_kernel_reads_missing_field_and_fix_declares_it(tmp_path: Path):
    kernel = replace_once(KERNEL, "tilingData.tileLength);", "tilingData.tileLength + tilingData.extra);")
    root = write_operator(tmp_path / "op", kernel=kernel)
    (f,) = [x for x in findings(root, "tiling-field-mismatch") if x.severity == "error"]
    assert "'extra'" in f.message and f.file.endswith("op_kernel/scale.cpp")
    apply_fix(f.fixes[0], write=True)
    assert "TILING_DATA_FIELD_DEF(uint32_t, extra);" in (root / "op_host" / "scale_tiling.h").read_text()
    assert [x for x in findings(root, "tiling-field-mismatch") if x.severity == "error"] == []


def test_unread_field_is_a_note(tmp_path: Path):
    tiling_h = replace_once(
        TILING_H,
        "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n",
        "    TILING_DATA_FIELD_DEF(uint32_t, tileLength);\n    TILING_DATA_FIELD_DEF(uint32_t, unused);\n",
    )
    (f,) = findings(write_operator(tmp_path / "op", tiling_h=tiling_h), "tiling-field-mismatch")
    assert f.severity == "info" and f.line == 6


# ---- missing-aicore ----------------------------------------------------------------------------------------------
def test_missing_aicore_fires_and_fix_inserts_it(tmp_path: Path):
    kernel = replace_once(KERNEL, 'extern "C" __global__ __aicore__ void', 'extern "C" __global__ void')
    root = write_operator(tmp_path / "op", kernel=kernel)
    assert len(findings(root, "missing-aicore")) == 1
    assert fix_and_recheck(root, "missing-aicore") == []
    assert "__global__ __aicore__ void scale(" in (root / "op_kernel" / "scale.cpp").read_text()


@pytest.mark.parametrize("kind", ["__vector__", "__cube__", "__mix__(1, 2)"])
def test_missing_aicore_accepts_the_newer_kernel_kinds(tmp_path: Path, kind: str):
    # CANN's newer releases name the core kind instead: `__global__ __vector__ void k(...)` is a kernel entry
    kernel = replace_once(KERNEL, 'extern "C" __global__ __aicore__ void', f'extern "C" __global__ {kind} void')
    root = write_operator(tmp_path / "op", kernel=kernel)
    assert load_operator(root).model.kernel.entry == "scale"
    assert findings(root, "missing-aicore") == []


# ---- unaligned-datacopy ------------------------------------------------------------------------------------------
def test_unaligned_datacopy_fires_and_fix_uses_datacopypad(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        DataCopy(xLocal, xGm[progress * tileLength], tileLength);\n",
        "        DataCopy(xLocal, xGm[progress * tileLength], 100);\n",
    )
    root = write_operator(tmp_path / "op", kernel=kernel)
    (f,) = findings(root, "unaligned-datacopy")
    assert "200 bytes" in f.message
    assert fix_and_recheck(root, "unaligned-datacopy") == []
    text = (root / "op_kernel" / "scale.cpp").read_text()
    assert (
        "DataCopyPad(xLocal, xGm[progress * tileLength], DataCopyExtParams{1, static_cast<uint32_t>((100) * 2)"
    ) in text


def test_aligned_and_unknown_datacopy_are_quiet(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        DataCopy(xLocal, xGm[progress * tileLength], tileLength);\n",
        "        DataCopy(xLocal, xGm[progress * tileLength], 128);\n",
    )
    assert findings(write_operator(tmp_path / "op", kernel=kernel), "unaligned-datacopy") == []


# ---- unpaired-flag -----------------------------------------------------------------------------------------------
def test_setflag_without_waitflag_and_fix_adds_wait(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n"
        "        event_t ev = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));\n"
        "        SetFlag<HardEvent::V_S>(ev);\n",
    )
    root = write_operator(tmp_path / "op", kernel=kernel)
    (f,) = findings(root, "unpaired-flag")
    assert f.severity == "warning"
    assert fix_and_recheck(root, "unpaired-flag") == []
    assert (
        "SetFlag<HardEvent::V_S>(ev);\n        WaitFlag<HardEvent::V_S>(ev);"
        in (root / "op_kernel" / "scale.cpp").read_text()
    )


def test_waitflag_without_setflag_is_an_error(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        WaitFlag<HardEvent::MTE2_V>(0);\n        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
    )
    (f,) = findings(write_operator(tmp_path / "op", kernel=kernel), "unpaired-flag")
    assert f.severity == "error"


# ---- syncall-without-workspace -----------------------------------------------------------------------------------
def test_syncall_without_workspace(tmp_path: Path):
    kernel = replace_once(KERNEL, "    op.Process();\n", "    op.Process();\n    SyncAll();\n")
    root = write_operator(tmp_path / "op", kernel=kernel)
    assert len(findings(root, "syncall-without-workspace")) == 1
    host = replace_once(HOST, "ws[0] = 0;", "ws[0] = 16 * 1024 * 1024;")
    assert findings(write_operator(tmp_path / "ok", kernel=kernel, host=host), "syncall-without-workspace") == []


@pytest.mark.parametrize("rule", sorted(RULES_BY_ID))
def test_every_rule_has_a_test_here(rule: str):
    source = Path(__file__).read_text()
    assert f'"{rule}"' in source


def test_a_crashing_rule_does_not_silence_the_others(op_dir: Path, caplog):
    class Broken:
        id = "broken"

        def check(self, ctx):
            raise RuntimeError("boom")

    kernel = replace_once(KERNEL, 'extern "C" __global__ __aicore__ void', 'extern "C" __global__ void')
    root = write_operator(op_dir, kernel=kernel)
    result = lint(load_operator(root), rules=[Broken(), RULES_BY_ID["missing-aicore"]])
    assert [f.rule for f in result] == ["missing-aicore"]
    assert "broken" in caplog.text
