"""small-copy speaks only when a small constant is proved to be a tile's copy length (issue 13).

Each false-positive pattern an expert found on public operators is rebuilt here on this project's scale operator
(tests/opgen.py): a byte size (`sizeof(float)` as a constant) that a dtype dispatch compares against, a per-dtype
length the host picks, a fixed record size copied whole, a strided copy whose size is rows x block length. The true
case (a small tile constant the host passes as the tile length) still fires, and its fix is "Apply" only when the
bigger tile fits in the UB with every buffer.
"""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, KERNEL, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator


def small_copy(root: Path):
    op = load_operator(root)
    assert not op.model.syntax_errors, op.model.syntax_errors
    return [f for f in lint(op) if f.rule == "small-copy"]


SMALL_TILE = replace_once(HOST, "constexpr uint32_t TILE_LENGTH = 8192;", "constexpr uint32_t TILE_LENGTH = 64;")


def test_small_tile_constant_fires_and_fix_is_safe_when_buffers_fit(tmp_path: Path):
    (f,) = small_copy(write_operator(tmp_path / "op", host=SMALL_TILE))
    assert f.severity == "warning" and "128 bytes" in f.message
    (fix,) = f.fixes
    assert fix.safe and fix.edits[0].new_text == "8192"  # 2 queues x 2 buffers x 16 KB fit in 192 KB


def test_fix_is_verify_only_when_the_bigger_tile_does_not_fit(tmp_path: Path):
    kernel = replace_once(
        KERNEL,
        "        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n",
        "        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n"
        "        pipe.InitBuffer(scratch, 150 * 1024);\n",
    )
    kernel = replace_once(kernel, "    TPipe pipe;\n", "    TPipe pipe;\n    TBuf<TPosition::VECCALC> scratch;\n")
    (f,) = small_copy(write_operator(tmp_path / "op", host=SMALL_TILE, kernel=kernel))
    assert f.fixes and not f.fixes[0].safe  # 150 KB + 4 x 16 KB > 192 KB: only "Verify on the emulator"


def test_byte_size_constant_of_a_dtype_dispatch_is_silent(tmp_path: Path):
    """`BYTE_LEN_4 = 4` is sizeof(float): it multiplies the copy's byte count and picks the dtype branch. Setting it
    to 8192 (what the old rule offered) would break the dispatch."""
    kernel = replace_once(
        KERNEL,
        "constexpr int32_t BUFFER_NUM = 2;",
        "constexpr int32_t BUFFER_NUM = 2;\nconstexpr uint32_t BYTE_LEN_4 = 4;",
    )
    kernel = replace_once(
        kernel,
        "        DataCopy(xLocal, xGm[progress * tileLength], tileLength);\n",
        "        if (sizeof(half) * 2 == BYTE_LEN_4) {\n"
        "            DataCopyExtParams p{1, tileLength / 2 * BYTE_LEN_4, 0, 0, 0};\n"
        "            DataCopyPad(xLocal, xGm[progress * tileLength], p, {false, 0, 0, 0});\n"
        "        } else {\n"
        "            DataCopy(xLocal, xGm[progress * tileLength], tileLength);\n"
        "        }\n",
    )
    assert small_copy(write_operator(tmp_path / "op", kernel=kernel)) == []


def test_length_the_host_picks_per_dtype_is_silent(tmp_path: Path):
    host = replace_once(
        HOST,
        "constexpr uint32_t TILE_LENGTH = 8192;",
        "constexpr uint32_t ROW_LEN_64 = 64;\nconstexpr uint32_t ROW_LEN_128 = 128;",
    )
    host = replace_once(
        host,
        "    tiling.set_tileLength(TILE_LENGTH);\n",
        "    if (context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT) {\n"
        "        tiling.set_tileLength(ROW_LEN_64);\n"
        "    } else {\n"
        "        tiling.set_tileLength(ROW_LEN_128);\n"
        "    }\n",
    )
    assert small_copy(write_operator(tmp_path / "op", host=host)) == []


def test_record_size_copied_whole_is_silent(tmp_path: Path):
    """A fixed-size record (a 96-element row of an algorithm) copied per record: nothing is cut into tiles of it."""
    kernel = replace_once(
        KERNEL,
        "constexpr int32_t BUFFER_NUM = 2;",
        "constexpr int32_t BUFFER_NUM = 2;\nconstexpr uint32_t RECORD_LEN = 96;",
    )
    kernel = replace_once(
        kernel,
        "        DataCopy(xLocal, xGm[progress * tileLength], tileLength);\n",
        "        DataCopy(xLocal, xGm[progress * RECORD_LEN], RECORD_LEN);\n",
    )
    assert small_copy(write_operator(tmp_path / "op", kernel=kernel)) == []


def test_strided_copy_of_many_blocks_is_silent(tmp_path: Path):
    """DataCopyParams(rows, TILE_LEN / 16, ...) moves rows x 32-byte blocks: the block length alone is not the copy."""
    kernel = replace_once(
        KERNEL,
        "constexpr int32_t BUFFER_NUM = 2;",
        "constexpr int32_t BUFFER_NUM = 2;\nconstexpr uint32_t SIDE_LEN = 128;",
    )
    kernel = replace_once(
        kernel,
        "        DataCopy(xLocal, xGm[progress * tileLength], tileLength);\n",
        "        DataCopy(xLocal, xGm[progress * tileLength], "
        "DataCopyParams(tileLength / SIDE_LEN, SIDE_LEN / 16, 0, 0));\n",
    )
    assert small_copy(write_operator(tmp_path / "op", kernel=kernel)) == []


def test_divisor_only_constant_is_not_a_length(tmp_path: Path):
    """A constant that only divides (a count of pieces) decides no copy length by value."""
    host = replace_once(HOST, "constexpr uint32_t TILE_LENGTH = 8192;", "constexpr uint32_t SPLIT_LEN = 16;")
    host = replace_once(host, "tiling.set_tileLength(TILE_LENGTH);", "tiling.set_tileLength(total / SPLIT_LEN);")
    assert small_copy(write_operator(tmp_path / "op", host=host)) == []


def test_a_reserve_subtracted_from_the_tile_is_no_tile_length(tmp_path: Path):
    # ops-nn hold-out: `yCastNum = (ubSize - RESERVED_UB_SIZE) / sizeof(float)`; the reserve decides the copy length
    # only inversely, and "enlarging" it (256 -> 1024) shrinks every copy.
    host = replace_once(
        HOST,
        "constexpr uint32_t TILE_LENGTH = 8192;",
        "constexpr uint32_t TILE_LENGTH = 8192;\nconstexpr uint32_t RESERVED_LEN = 256;",
    )
    host = replace_once(
        host, "tiling.set_tileLength(TILE_LENGTH);", "tiling.set_tileLength(total / blockDim - RESERVED_LEN);"
    )
    assert small_copy(write_operator(tmp_path / "op", host=host)) == []


def test_a_small_constant_added_to_the_tile_still_fires(tmp_path: Path):
    host = replace_once(
        HOST,
        "constexpr uint32_t TILE_LENGTH = 8192;",
        "constexpr uint32_t TILE_LENGTH = 8192;\nconstexpr uint32_t EXTRA_LEN = 64;",
    )
    host = replace_once(
        host,
        "tiling.set_tileLength(TILE_LENGTH);",
        "tiling.set_tileLength(total / blockDim % TILE_LENGTH + EXTRA_LEN);",
    )
    assert {f.message.split(" ")[0] for f in small_copy(write_operator(tmp_path / "op", host=host))} == {"EXTRA_LEN"}


CHUNK_COPIER = """\
constexpr uint32_t CHUNK_LEN = 64;

class ChunkCopier {
public:
    __aicore__ inline void Run(LocalTensor<half>& dst, GlobalTensor<half>& src, uint32_t blockLength)
    {
        uint32_t chunks = blockLength / CHUNK_LEN;
        for (uint32_t i = 0; i < chunks; i++) {
            DataCopy(dst, src[i * CHUNK_LEN], CHUNK_LEN);
        }
    }
};

class KernelScale {"""


def test_fix_is_verify_only_when_the_copying_class_owns_no_buffers(tmp_path: Path):
    # ops-nn hold-out (top_k_top_p_sample's sort kernel): the class copying with the small constant allocates no UB
    # itself; it works in a tensor its caller carved (the constant also places sub-buffers in it). With no buffer of
    # its own to add up, "every buffer fits at the new value" was vacuously true and the fix was offered as Apply.
    kernel = replace_once(KERNEL, "class KernelScale {", CHUNK_COPIER)
    (f,) = small_copy(write_operator(tmp_path / "op", kernel=kernel))
    assert f.message.startswith("CHUNK_LEN = 64")
    assert f.fixes and not f.fixes[0].safe


def test_a_copy_in_a_header_the_build_never_compiles_is_not_judged(tmp_path: Path):
    # ops-nn hold-out (batch_norm_v3): the only copy the constant sizes is in an arch35/ header reached only from the
    # Ascend 950's entry; the 910B build never runs it.
    # The constant stays where the build reads it (the 910B entry); only its copy is in the other chip's header.
    kernel = replace_once(KERNEL, "class KernelScale {", "constexpr uint32_t CHUNK_LEN = 64;\n\nclass KernelScale {")
    root = write_operator(tmp_path / "op", kernel=kernel)
    (root / "op_kernel" / "arch35").mkdir()
    copier = CHUNK_COPIER.replace("constexpr uint32_t CHUNK_LEN = 64;\n", "").replace("class KernelScale {", "")
    (root / "op_kernel" / "arch35" / "chunk.h").write_text(
        '#include "kernel_operator.h"\nusing namespace AscendC;\n' + copier
    )
    assert small_copy(root) == []


def test_fix_is_verify_only_when_no_buffer_grows_with_the_constant(tmp_path: Path):
    # ops-nn hold-out (top_k_top_p_sample): the copy's length is the constant but its destination is a buffer of a
    # size the constant does not decide; copying 8x more into it overruns it, whatever the UB total says.
    kernel = replace_once(KERNEL, "class KernelScale {", "constexpr uint32_t PIECE_LEN = 64;\n\nclass KernelScale {")
    kernel = replace_once(
        kernel,
        "        DataCopy(xLocal, xGm[progress * tileLength], tileLength);\n",
        "        for (uint32_t p = 0; p < tileLength / PIECE_LEN; p++) {\n"
        "            DataCopy(xLocal, xGm[progress * tileLength + p * PIECE_LEN], PIECE_LEN);\n"
        "        }\n",
    )
    found = [f for f in small_copy(write_operator(tmp_path / "op", kernel=kernel)) if f.message.startswith("PIECE")]
    assert found and found[0].fixes and not found[0].fixes[0].safe
