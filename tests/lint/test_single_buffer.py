"""single-buffer states a problem only when it proved the premise (issue 13): the queue streams tiles between GM
and the vector unit in a loop that runs more than once, and a second buffer fits in the UB at the host's tile size.
One test per false-positive pattern (UB full at the host's tile; scratch and statistics queues; loaded once; each
with and without case facts) and one per miss (a local BUFFER_NUM; a fill-then-copy-out loop). Kernels are the
small scale operator of tests/opgen.py and variants written for these tests; facts are built by hand (the emulator
side is tested in test_case_facts.py)."""

from __future__ import annotations

import logging
from pathlib import Path

from opgen import HOST, KERNEL, replace_once, write_operator

from tilewise.analysis.chip import load_chip
from tilewise.analysis.lint import lint
from tilewise.analysis.observed import BufferSeen, CaseFacts
from tilewise.analysis.operator import load_operator
from tilewise.analysis.rules import RULES_BY_ID
from tilewise.analysis.rules._static_sizes import _constants, _evaluate

UB = load_chip().ub_bytes
SINGLE = replace_once(KERNEL, "constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;")
# The host's tile comes from the input's shape: unknown to a static reading.
RUNTIME_HOST = replace_once(HOST, "tiling.set_tileLength(TILE_LENGTH);", "tiling.set_tileLength(total / 4096);")
# The host divides the UB between the two queues: each tile is half the UB, a second buffer cannot fit.
UB_FULL_HOST = replace_once(
    RUNTIME_HOST,
    "tiling.set_tileLength(total / 4096);",
    """\
uint64_t ubSize = 0;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    tiling.set_tileLength(ubSize / (2 * sizeof(uint16_t)));""",
)


def run(root: Path, facts: list[CaseFacts] | None = None):
    return lint(load_operator(root), rules=[RULES_BY_ID["single-buffer"]], facts=facts)


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def facts(root: Path, kernel: str, tile_bytes: int, tiles: int, case: str = "c") -> CaseFacts:
    """What a run would report for the scale kernel: its two InitBuffers and how often each EnQue ran."""
    path = str(root / "op_kernel" / "scale.cpp")
    init = line_of(kernel, "InitBuffer(inQueueX")
    return CaseFacts(
        case=case,
        block_dim=48,
        ub_capacity=UB,
        buffers=[BufferSeen(path, init, 1, tile_bytes), BufferSeen(path, init + 1, 1, tile_bytes)],
        site_calls={
            (path, line_of(kernel, "inQueueX.EnQue")): tiles,
            (path, line_of(kernel, "outQueueY.EnQue")): tiles,
        },
    )


# ---- the premise proved: warning with a safe fix --------------------------------------------------------------
def test_static_sizes_that_fit_give_a_warning_with_a_safe_fix(tmp_path: Path):
    (f,) = run(write_operator(tmp_path / "op", kernel=SINGLE))
    assert f.severity == "warning" and "copy-in" in f.message
    (fix,) = f.fixes
    assert fix.safe and fix.edits[0].new_text == "2"


def test_facts_that_fit_in_every_case_give_a_warning_with_a_safe_fix(tmp_path: Path):
    root = write_operator(tmp_path / "op", kernel=SINGLE, host=RUNTIME_HOST)
    (f,) = run(root, [facts(root, SINGLE, 16384, 4, "a"), facts(root, SINGLE, 32768, 2, "b")])
    assert f.severity == "warning" and "every case (2 run)" in f.message
    assert f.fixes[0].safe and "32768 bytes" in f.fixes[0].title


# ---- UB full at the host's tile size ----------------------------------------------------------------------------
def test_ub_full_at_the_hosts_tile_is_silent_without_facts(tmp_path: Path):
    assert run(write_operator(tmp_path / "op", kernel=SINGLE, host=UB_FULL_HOST)) == []


def test_ub_full_in_one_case_is_silent_with_facts(tmp_path: Path):
    root = write_operator(tmp_path / "op", kernel=SINGLE, host=RUNTIME_HOST)
    fits = facts(root, SINGLE, 16384, 4, "small")
    full = facts(root, SINGLE, UB // 2 - 1024, 4, "big")  # two queues of ~96 KB: a third buffer is past the UB
    assert run(root, [fits, full]) == []
    assert len(run(root, [fits])) == 1


def test_run_time_sizes_without_facts_give_a_note_and_a_fix_to_verify(tmp_path: Path):
    (f,) = run(write_operator(tmp_path / "op", kernel=SINGLE, host=RUNTIME_HOST))
    assert f.severity == "info"
    assert "Unproven" in f.message and "if the host's tile leaves" in f.message
    assert f.fixes and not f.fixes[0].safe


# ---- scratch and statistics queues --------------------------------------------------------------------------
# A work queue: allocated, used by the vector unit and freed in the loop, never enqueued or copied.
SCRATCH = replace_once(
    SINGLE,
    "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
    """\
        LocalTensor<half> work = workQueue.AllocTensor<half>();
        Muls(work, xLocal, (half)2.0, tileLength);
        Muls(yLocal, work, (half)1.0, tileLength);
        workQueue.FreeTensor(work);
""",
)
SCRATCH = replace_once(
    SCRATCH,
    "        pipe.InitBuffer(outQueueY,",
    "        pipe.InitBuffer(workQueue, 1, 64);\n        pipe.InitBuffer(outQueueY,",
)
SCRATCH = replace_once(
    SCRATCH,
    "    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;",
    "    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;\n    TQue<QuePosition::VECCALC, 1> workQueue;",
)
SCRATCH = replace_once(SCRATCH, "constexpr int32_t BUFFER_NUM = 1;", "constexpr int32_t BUFFER_NUM = 2;")
# A statistics queue: enqueued and dequeued each tile, but its tensor stays in the UB (a running maximum).
STATS = replace_once(
    SCRATCH,
    "        workQueue.FreeTensor(work);\n",
    "        workQueue.EnQue(work);\n        work = workQueue.DeQue<half>();\n"
    "        Max(yLocal, yLocal, work, tileLength);\n        workQueue.FreeTensor(work);\n",
)


def test_a_scratch_queue_is_silent(tmp_path: Path):
    assert run(write_operator(tmp_path / "op", kernel=SCRATCH, host=RUNTIME_HOST)) == []


def test_a_statistics_queue_that_never_meets_gm_is_silent_with_and_without_facts(tmp_path: Path):
    root = write_operator(tmp_path / "op", kernel=STATS, host=RUNTIME_HOST)
    assert run(root) == []
    path = str(root / "op_kernel" / "scale.cpp")
    seen = CaseFacts(
        case="c",
        ub_capacity=UB,
        buffers=[BufferSeen(path, line_of(STATS, "workQueue, 1"), 1, 64)],
        site_calls={(path, line_of(STATS, "workQueue.EnQue")): 8},
    )
    assert run(root, [seen]) == []


# ---- loaded once --------------------------------------------------------------------------------------------
def test_a_queue_loaded_once_is_silent(tmp_path: Path):
    once = replace_once(
        SINGLE,
        "        for (uint32_t i = 0; i < loops; i++) {\n            CopyIn(i);\n"
        "            Compute();\n            CopyOut(i);\n        }\n",
        "        CopyIn(0);\n        Compute();\n        CopyOut(0);\n",
    )
    assert run(write_operator(tmp_path / "op", kernel=once, host=RUNTIME_HOST)) == []


def test_a_loop_that_ran_once_per_block_in_every_case_is_silent(tmp_path: Path):
    root = write_operator(tmp_path / "op", kernel=SINGLE, host=RUNTIME_HOST)
    assert run(root, [facts(root, SINGLE, 16384, 1)]) == []
    assert len(run(root, [facts(root, SINGLE, 16384, 1, "a"), facts(root, SINGLE, 16384, 3, "b")])) == 1


# ---- the misses ---------------------------------------------------------------------------------------------
LOCAL_NUM = replace_once(SINGLE, "constexpr int32_t BUFFER_NUM = 1;\n", "")
LOCAL_NUM = replace_once(
    LOCAL_NUM,
    "        this->blockLength = blockLength;\n",
    "        uint32_t BUFFER_NUM = 1;\n        this->blockLength = blockLength;\n",
)
LOCAL_NUM = replace_once(LOCAL_NUM, "TQue<QuePosition::VECIN, BUFFER_NUM>", "TQue<QuePosition::VECIN, 1>")
LOCAL_NUM = replace_once(LOCAL_NUM, "TQue<QuePosition::VECOUT, BUFFER_NUM>", "TQue<QuePosition::VECOUT, 1>")


def test_a_local_buffer_num_in_a_streaming_loop_is_found_and_its_literal_fixed(tmp_path: Path):
    (f,) = run(write_operator(tmp_path / "op", kernel=LOCAL_NUM))
    assert f.line == line_of(LOCAL_NUM, "uint32_t BUFFER_NUM = 1;")
    (fix,) = f.fixes
    assert fix.edits[0].line == f.line and fix.edits[0].new_text == "2"


def test_a_local_buffer_num_assigned_again_is_not_taken_for_its_literal(tmp_path: Path):
    kernel = replace_once(
        LOCAL_NUM,
        "        this->blockLength = blockLength;\n",
        "        this->blockLength = blockLength;\n        BUFFER_NUM = blockLength > 4 ? 2 : 1;\n",
    )
    assert run(write_operator(tmp_path / "op", kernel=kernel)) == []


FILL = replace_once(
    SINGLE,
    "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
    "        Duplicate(yLocal, (half)0.0, tileLength);\n",
)


def test_a_fill_then_copy_out_loop_gets_the_fill_once_advice(tmp_path: Path):
    findings = run(write_operator(tmp_path / "op", kernel=FILL))
    fill = [f for f in findings if "fill the tile once" in f.message]
    assert len(fill) == 1 and "outQueueY" in fill[0].message and not fill[0].fixes


def test_a_filled_accumulator_written_after_dequeue_gets_no_fill_once_advice(tmp_path: Path):
    # ops-nn hold-out (embedding_dense_grad_v2's addResQue_): Duplicate(0) resets an accumulator that is dequeued
    # and summed into before the copy-out; filling it once would carry the sums from tile to tile.
    kernel = replace_once(
        FILL,
        "        LocalTensor<half> yLocal = outQueueY.DeQue<half>();\n",
        "        LocalTensor<half> yLocal = outQueueY.DeQue<half>();\n"
        "        Adds(yLocal, yLocal, (half)1.0, tileLength);\n",
    )
    assert [f for f in run(write_operator(tmp_path / "op", kernel=kernel)) if "fill the tile once" in f.message] == []


# ---- a host buffer count that counts queues, not buffers per queue (ops-nn hold-out) --------------------------
# ada_layer_norm_grad: `maxBufferSize = (ubSize - reserve) / LNG_MAX_BUFFER_NUM / 4` with LNG_MAX_BUFFER_NUM = 6 and
# six single-buffered queues: the UB is already full. The rule read any host buffer count >= 2 as "room for a second
# buffer left". Here the scale kernel's two single-buffered queues, with a third one added, share the UB by a
# count of 3 (one buffer each); a count of 6 leaves room for a second buffer in each.
SINGLE3 = replace_once(
    SINGLE,
    "        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n",
    "        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n"
    "        pipe.InitBuffer(auxQueue, 1, this->tileLength * sizeof(half));\n",
)
SINGLE3 = replace_once(
    SINGLE3,
    "    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;\n",
    "    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueY;\n    TQue<QuePosition::VECOUT, 1> auxQueue;\n",
)


def _counted_host(count: int) -> str:
    host = replace_once(
        UB_FULL_HOST,
        "constexpr uint32_t TILE_LENGTH = 8192;",
        f"constexpr uint32_t TILE_LENGTH = 8192;\nconstexpr uint32_t MAX_BUFFER_NUM = {count};",
    )
    return replace_once(
        host,
        "tiling.set_tileLength(ubSize / (2 * sizeof(uint16_t)));",
        "tiling.set_tileLength(ubSize / MAX_BUFFER_NUM / sizeof(uint16_t));",
    )


def test_a_host_count_of_the_queues_leaves_no_room_and_is_silent(tmp_path: Path):
    assert run(write_operator(tmp_path / "op", kernel=SINGLE3, host=_counted_host(3))) == []


def test_a_host_count_of_two_buffers_per_queue_still_fires(tmp_path: Path):
    found = run(write_operator(tmp_path / "op", kernel=SINGLE3, host=_counted_host(6)))
    assert found and all("holds two buffers per queue" in f.message for f in found)


# ---- constants folded past 64 bits (the LSP fuzzer, benchmarks/fuzz_lsp.py) -------------------------------------
STORM = "".join(
    ["#define P0 3\n", *(f"#define P{i} (P{i - 1} * P{i - 1} + 1)\n" for i in range(1, 24))]
    + ["#define WIDE (1 << 100000)\n", "#define WIDER (WIDE * WIDE)\n", "constexpr int64_t Q = (1 << 62) * 8;\n"]
)


def test_constants_that_square_each_other_are_unknown_past_64_bits_and_lint_goes_on(tmp_path: Path, caplog):
    """A macro storm of constants each the square of the one before made an integer of thousands of digits, and
    naming it in the next expression failed: `ValueError: Exceeds the limit (4300 digits) for integer string
    conversion` (13 logged tracebacks in a 10,000-edit run). Each step is now within 64 bits, else unknown."""
    env: dict[str, int] = {}
    _constants(STORM, env)
    assert env["P1"] == 10 and env["P2"] == 101 and env["P5"] == 104080805**2 + 1
    assert "P6" not in env and "P23" not in env and "WIDE" not in env and "WIDER" not in env and "Q" not in env
    assert _evaluate("P23 * 2", env) is None and _evaluate("(1 << 63) * 4", env) is None
    assert _evaluate("(1 << 10) / 4 - 1", env) == 255 and _evaluate("7 % 0", env) is None
    kernel = replace_once(SINGLE, "constexpr int32_t BUFFER_NUM = 1;", STORM + "constexpr int32_t BUFFER_NUM = 1;")
    with caplog.at_level(logging.ERROR):
        (f,) = run(write_operator(tmp_path / "op", kernel=kernel))
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert f.severity == "warning" and f.fixes[0].safe
