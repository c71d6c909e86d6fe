"""single-buffer: a second buffer helps only where stages could overlap, and its gain comes from the cost model.

Patterns from the corpus reading (issue 13), each on a variant of the small scale operator of tests/opgen.py:
- loops that cannot overlap anything: a PipeBarrier<PIPE_ALL> in the loop (directly, through a kernel macro, through
  a macro defined outside the operator, or in a function the loop calls), a WaitFlag that makes the next copy-in
  wait for the last copy-out, a compute that is a scalar GetValue/SetValue walk;
- a queue loaded once although another class calls a method of the same name in a loop;
- static sizes named through members and class constants (`this->tileLength = TILE_LENGTH;`), and a count shared by
  several queues (the fix doubles them all);
- a fill that is not the same tile every iteration (a slice, a raw address, a value computed in the loop);
- hosts that fit the tile to the UB without a plain `ubSize / n`;
- with case facts, the gain is the timing model's ceiling (CaseFacts.overlap_bound), and a ceiling under 1.05x in
  every case makes the finding a note.
"""

from __future__ import annotations

from pathlib import Path

from opgen import HOST, KERNEL, replace_once, write_operator

from tilewise.analysis.chip import load_chip
from tilewise.analysis.lint import lint
from tilewise.analysis.observed import BufferSeen, CaseFacts
from tilewise.analysis.operator import load_operator
from tilewise.analysis.rules import RULES_BY_ID

UB = load_chip().ub_bytes
SINGLE = replace_once(KERNEL, "constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;")
RUNTIME_HOST = replace_once(HOST, "tiling.set_tileLength(TILE_LENGTH);", "tiling.set_tileLength(total / 4096);")
MULS = "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n"
LOOP_BODY = "            CopyIn(i);\n            Compute();\n            CopyOut(i);\n"


def run(root: Path, facts: list[CaseFacts] | None = None):
    return lint(load_operator(root), rules=[RULES_BY_ID["single-buffer"]], facts=facts)


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


# ---- loops with nothing to overlap ----------------------------------------------------------------------------
def test_a_full_barrier_in_the_loop_leaves_nothing_to_overlap(tmp_path: Path):
    assert len(run(write_operator(tmp_path / "a", kernel=SINGLE))) == 1  # the plain loop: found
    barrier = replace_once(SINGLE, LOOP_BODY, LOOP_BODY + "            PipeBarrier<PIPE_ALL>();\n")
    assert run(write_operator(tmp_path / "b", kernel=barrier)) == []


def test_a_full_barrier_through_a_macro_or_a_called_function_is_seen(tmp_path: Path):
    macro = replace_once(
        SINGLE, "using namespace AscendC;\n", "using namespace AscendC;\n#define SYNC_ALL() PipeBarrier<PIPE_ALL>()\n"
    )
    macro = replace_once(macro, MULS, MULS + "        SYNC_ALL();\n")
    assert run(write_operator(tmp_path / "a", kernel=macro)) == []
    # Two calls deep: Compute -> Finish -> the barrier.
    nested = replace_once(SINGLE, MULS, MULS + "        Finish();\n")
    nested = replace_once(
        nested,
        "    __aicore__ inline void CopyOut(uint32_t progress)\n",
        "    __aicore__ inline void Finish() { PipeBarrier<PIPE_ALL>(); }\n"
        "    __aicore__ inline void CopyOut(uint32_t progress)\n",
    )
    assert run(write_operator(tmp_path / "b", kernel=nested)) == []


def test_a_barrier_macro_defined_outside_the_operator_is_taken_at_its_name(tmp_path: Path):
    outside = replace_once(SINGLE, MULS, MULS + "        SHARED_PIPE_ALL();\n")
    assert run(write_operator(tmp_path / "a", kernel=outside)) == []
    # A macro the operator defines as nothing on the device is not a barrier.
    empty = replace_once(
        outside, "using namespace AscendC;\n", "using namespace AscendC;\n#define SHARED_PIPE_ALL() ((void)0)\n"
    )
    assert len(run(write_operator(tmp_path / "b", kernel=empty))) == 1


def test_a_wait_for_the_last_copy_out_serialises_the_copy_in(tmp_path: Path):
    wait = replace_once(
        SINGLE,
        LOOP_BODY,
        LOOP_BODY + "            SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);\n"
        "            WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);\n",
    )
    assert run(write_operator(tmp_path / "a", kernel=wait)) == []
    # A wait on the copy-in itself (what a queue would do) leaves the overlap a second buffer gives.
    mte2_v = replace_once(
        SINGLE,
        LOOP_BODY,
        LOOP_BODY + "            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);\n"
        "            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);\n",
    )
    assert len(run(write_operator(tmp_path / "b", kernel=mte2_v))) == 1


def test_a_scalar_element_walk_as_the_compute_leaves_nothing_to_overlap(tmp_path: Path):
    scalar = replace_once(
        SINGLE,
        MULS,
        "        for (uint32_t k = 0; k < tileLength; k++) {\n"
        "            yLocal.SetValue(k, xLocal.GetValue(k));\n        }\n",
    )
    assert run(write_operator(tmp_path / "a", kernel=scalar)) == []


# ---- loaded once ----------------------------------------------------------------------------------------------
def test_a_method_name_another_class_calls_in_a_loop_does_not_make_the_queue_looped(tmp_path: Path):
    once = replace_once(
        SINGLE,
        "        for (uint32_t i = 0; i < loops; i++) {\n" + LOOP_BODY + "        }\n",
        "        CopyIn(0);\n        Compute();\n        CopyOut(0);\n",
    )
    other = """
class Other {
public:
    __aicore__ inline void CopyIn(uint32_t i) { (void)i; }
    __aicore__ inline void Run(uint32_t n)
    {
        for (uint32_t i = 0; i < n; i++) {
            CopyIn(i);
        }
    }
};

extern "C" __global__"""
    once = replace_once(once, '\nextern "C" __global__', other)
    assert run(write_operator(tmp_path / "a", kernel=once)) == []


# ---- static sizes ---------------------------------------------------------------------------------------------
MEMBER = replace_once(SINGLE, "this->tileLength = tileLength;", "this->tileLength = TILE_LENGTH;")
MEMBER = replace_once(
    MEMBER,
    "constexpr int32_t BUFFER_NUM = 1;",
    "constexpr int32_t BUFFER_NUM = 1;\nconstexpr uint32_t TILE_LENGTH = 4096;",
)


def test_a_size_set_through_a_member_from_a_constant_is_static(tmp_path: Path):
    (f,) = run(write_operator(tmp_path / "a", kernel=MEMBER, host=RUNTIME_HOST))
    assert f.severity == "warning" and "Doubled, the pipe's buffers take" in f.message
    assert f.fixes[0].safe and "upper bound" in f.fixes[0].title


def test_class_constants_that_already_fill_the_ub_leave_no_room(tmp_path: Path):
    half_ub = replace_once(
        SINGLE,
        "        pipe.InitBuffer(inQueueX, BUFFER_NUM, this->tileLength * sizeof(half));\n"
        "        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n",
        "        pipe.InitBuffer(inQueueX, BUFFER_NUM, HALF_UB);\n"
        "        pipe.InitBuffer(outQueueY, BUFFER_NUM, HALF_UB);\n",
    )
    half_ub = replace_once(half_ub, "    TPipe pipe;\n", f"    TPipe pipe;\n    const int HALF_UB = {UB // 2};\n")
    assert run(write_operator(tmp_path / "a", kernel=half_ub, host=RUNTIME_HOST)) == []


def test_a_count_shared_by_several_queues_doubles_them_all(tmp_path: Path):
    host = replace_once(
        HOST, "constexpr uint32_t TILE_LENGTH = 8192;", f"constexpr uint32_t TILE_LENGTH = {UB * 3 // 10 // 2};"
    )  # two queues of 30% of the UB
    # One more buffer of one queue would fit (90%), but BUFFER_NUM = 2 doubles both (120%).
    assert run(write_operator(tmp_path / "a", kernel=SINGLE, host=host)) == []
    # With a count of its own per queue, each fix doubles only its queue: it fits.
    own = replace_once(SINGLE, "pipe.InitBuffer(outQueueY, BUFFER_NUM,", "pipe.InitBuffer(outQueueY, 1,")
    findings = run(write_operator(tmp_path / "b", kernel=own, host=host))
    assert len(findings) == 2 and all(f.severity == "warning" for f in findings)


# ---- fills that differ per iteration --------------------------------------------------------------------------
def fills(root: Path) -> list:
    return [f for f in run(root) if "fill the tile once" in f.message]


def test_only_a_whole_tile_filled_with_a_fixed_value_gets_the_fill_once_advice(tmp_path: Path):
    fill = replace_once(SINGLE, MULS, "        Duplicate(yLocal, (half)0.0, tileLength);\n")
    assert len(fills(write_operator(tmp_path / "a", kernel=fill))) == 1
    sliced = replace_once(SINGLE, MULS, "        Duplicate(yLocal[16], (half)0.0, tileLength - 16);\n")
    assert fills(write_operator(tmp_path / "b", kernel=sliced)) == []
    raw = replace_once(
        fill,
        "        outQueueY.EnQue<half>(yLocal);\n",
        "        Accumulate((__ubuf__ half*)yLocal.GetPhyAddr());\n        outQueueY.EnQue<half>(yLocal);\n",
    )
    assert fills(write_operator(tmp_path / "c", kernel=raw)) == []
    computed = replace_once(
        SINGLE, MULS, "        half v = xLocal.GetValue(0);\n        Duplicate(yLocal, v, tileLength);\n"
    )
    assert fills(write_operator(tmp_path / "d", kernel=computed)) == []


# ---- hosts that fit the tile to the UB --------------------------------------------------------------------------
def host_with(body: str) -> str:
    return replace_once(RUNTIME_HOST, "tiling.set_tileLength(total / 4096);", body)


def test_a_host_that_divides_what_is_left_of_the_ub_leaves_no_room(tmp_path: Path):
    host = host_with("uint32_t ubSize = 196608;\n    tiling.set_tileLength((ubSize - 1024) / (2 * sizeof(uint16_t)));")
    assert run(write_operator(tmp_path / "a", kernel=SINGLE, host=host)) == []


def test_a_host_that_compares_its_buffers_with_the_ub_leaves_no_room(tmp_path: Path):
    host = host_with(
        "uint32_t maxUbSize = 196608;\n    uint32_t rows = 1;\n"
        "    while ((rows + 1) * 1024 < maxUbSize) { rows++; }\n    tiling.set_tileLength(rows * 512);"
    )
    assert run(write_operator(tmp_path / "a", kernel=SINGLE, host=host)) == []


def test_a_halving_fix_changes_the_hosts_count_too(tmp_path: Path):
    host = replace_once(
        RUNTIME_HOST,
        "constexpr uint32_t TILE_LENGTH = 8192;",
        "constexpr uint32_t TILE_LENGTH = 8192;\nconstexpr uint32_t BUFFER_NUM = 1;",
    )
    host = replace_once(
        host,
        "tiling.set_tileLength(total / 4096);",
        "uint32_t ubSize = 196608;\n    tiling.set_tileLength(ubSize / BUFFER_NUM / 4);",
    )
    (f,) = run(write_operator(tmp_path / "a", kernel=SINGLE, host=host))
    assert f.severity == "info" and not f.fixes[0].safe
    assert sorted(Path(e.file).parent.name for e in f.fixes[0].edits) == ["op_host", "op_kernel"]
    # A plain local `static int BUFFER_NUM = 1;` in the tiling function (not a tuning knob) is edited too.
    local = replace_once(host, "constexpr uint32_t BUFFER_NUM = 1;\n", "")
    local = replace_once(
        local, "    uint32_t ubSize = 196608;", "    static int BUFFER_NUM = 1;\n    uint32_t ubSize = 196608;"
    )
    (f,) = run(write_operator(tmp_path / "b", kernel=SINGLE, host=local))
    assert sorted(Path(e.file).parent.name for e in f.fixes[0].edits) == ["op_host", "op_kernel"]


# ---- gains from the cost model --------------------------------------------------------------------------------
def timed(root: Path, case: str, time_us: float, launch_us: float, ratio: dict[str, float]) -> CaseFacts:
    path = str(root / "op_kernel" / "scale.cpp")
    init = line_of(SINGLE, "InitBuffer(inQueueX")
    return CaseFacts(
        case=case,
        block_dim=48,
        ub_capacity=UB,
        buffers=[BufferSeen(path, init, 1, 16384), BufferSeen(path, init + 1, 1, 16384)],
        site_calls={(path, line_of(SINGLE, "inQueueX.EnQue")): 8, (path, line_of(SINGLE, "outQueueY.EnQue")): 8},
        time_us=time_us,
        launch_us=launch_us,
        pipe_ratio=ratio,
    )


def test_with_timed_cases_the_gain_is_the_overlap_ceiling_of_the_best_case(tmp_path: Path):
    root = write_operator(tmp_path / "a", kernel=SINGLE, host=RUNTIME_HOST)
    # 100 us with 10 us of launch: the busiest pipe (MTE2) takes 40% of the 90 us span: ceiling 100 / 46 = 2.17x.
    slow = timed(root, "big", 100.0, 10.0, {"mte2": 0.4, "vector": 0.3, "mte3": 0.2})
    busy = timed(root, "small", 20.0, 10.0, {"mte2": 0.9, "vector": 0.1})
    (f,) = run(root, [busy, slow])
    assert f.severity == "warning"
    assert "at most 2.17x on case big: the busiest pipe, MTE2, is already busy 40% of the span" in f.message
    assert "at most 2.17x on case big" in f.fixes[0].title


def test_a_ceiling_under_five_percent_in_every_case_is_a_note(tmp_path: Path):
    root = write_operator(tmp_path / "a", kernel=SINGLE, host=RUNTIME_HOST)
    saturated = timed(root, "c", 100.0, 10.0, {"mte2": 0.97, "vector": 0.5})
    (f,) = run(root, [saturated])
    assert f.severity == "info" and "not worth it" in f.message and "at most 1.03x" in f.message


def test_without_timing_the_static_estimate_says_it_is_an_upper_bound(tmp_path: Path):
    (f,) = run(write_operator(tmp_path / "a", kernel=SINGLE))
    assert "upper bound" in f.message and "upper bound" in f.fixes[0].title


def test_a_tiling_field_the_host_sets_to_a_constant_is_static(tmp_path: Path):
    by_field = replace_once(
        SINGLE,
        "Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t tileLength)",
        "Init(GM_ADDR x, GM_ADDR y, const ScaleTilingData* td)",
    )
    by_field = replace_once(by_field, "this->blockLength = blockLength;", "this->blockLength = td->blockLength;")
    by_field = replace_once(by_field, "this->tileLength = tileLength;", "this->tileLength = td->tileLength;")
    by_field = by_field.replace(
        "+ blockLength * GetBlockIdx(), blockLength)", "+ this->blockLength * GetBlockIdx(), this->blockLength)"
    )
    by_field = replace_once(
        by_field, "op.Init(x, y, tilingData.blockLength, tilingData.tileLength);", "op.Init(x, y, &tilingData);"
    )
    (f,) = run(write_operator(tmp_path / "a", kernel=by_field))  # the host sets tileLength to TILE_LENGTH
    assert f.severity == "warning" and f.fixes[0].safe
    (f,) = run(write_operator(tmp_path / "b", kernel=by_field, host=RUNTIME_HOST))
    assert f.severity == "info" and "Unproven" in f.message


def test_per_row_factors_read_for_vector_work_keep_the_overlap(tmp_path: Path):
    rows = replace_once(
        SINGLE,
        MULS,
        "        for (uint32_t r = 0; r < 4; r++) {\n"
        "            half s = xLocal.GetValue(r);\n"
        "            Muls(yLocal[r * 16], xLocal[r * 16], s, 16);\n        }\n",
    )
    assert len(run(write_operator(tmp_path / "a", kernel=rows))) == 1
