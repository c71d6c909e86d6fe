"""pipe-all-in-loop offers "Remove" only when the queues order everything the barrier would (issue 13).

The expert's false positives, rebuilt on this project's scale operator (tests/opgen.py): a barrier that orders a
scalar GetValue/SetValue of a TBuf tensor, and one that orders a DataCopyPad into a TBuf and the Cast that reads it
(no queue between them), also when the copy and the Cast sit in helper functions the loop calls. Removing those
races. The true case (a barrier between queued stages) still fires with a safe fix.
"""

from __future__ import annotations

from pathlib import Path

from opgen import KERNEL, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator


def pipe_all(root: Path):
    op = load_operator(root)
    assert not op.model.syntax_errors, op.model.syntax_errors
    return [f for f in lint(op) if f.rule == "pipe-all-in-loop"]


def with_tbuf(kernel: str) -> str:
    kernel = replace_once(kernel, "    TPipe pipe;\n", "    TPipe pipe;\n    TBuf<TPosition::VECCALC> tmpBuf;\n")
    return replace_once(
        kernel,
        "        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n",
        "        pipe.InitBuffer(outQueueY, BUFFER_NUM, this->tileLength * sizeof(half));\n"
        "        pipe.InitBuffer(tmpBuf, this->tileLength * sizeof(float));\n",
    )


def test_barrier_between_queued_stages_fires_with_a_safe_fix(tmp_path: Path):
    kernel = replace_once(
        KERNEL, "            CopyOut(i);\n", "            CopyOut(i);\n            PipeBarrier<PIPE_ALL>();\n"
    )
    (f,) = pipe_all(write_operator(tmp_path / "op", kernel=kernel))
    assert f.severity == "warning" and f.fixes and f.fixes[0].safe


def test_the_intrinsic_spelling_pipe_barrier_is_the_same_barrier(tmp_path: Path):
    """`pipe_barrier(PIPE_ALL)`, the intrinsic PipeBarrier<PIPE_ALL>() wraps, is the same instruction: the same finding
    and fix; a barrier on one pipe (`pipe_barrier(PIPE_V)`) is none."""
    kernel = replace_once(
        KERNEL, "            CopyOut(i);\n", "            CopyOut(i);\n            pipe_barrier(PIPE_ALL);\n"
    )
    (f,) = pipe_all(write_operator(tmp_path / "op", kernel=kernel))
    assert f.severity == "warning" and f.fixes and f.fixes[0].safe
    fixed = f.fixes[0].edits[0]
    assert fixed.new_text.strip() == ""
    one_pipe = replace_once(
        KERNEL, "            CopyOut(i);\n", "            CopyOut(i);\n            pipe_barrier(PIPE_V);\n"
    )
    assert pipe_all(write_operator(tmp_path / "op2", kernel=one_pipe)) == []


def test_barrier_guarding_a_scalar_getvalue_of_a_tbuf_gives_no_removal(tmp_path: Path):
    """Muls writes the TBuf, GetValue reads it on the scalar unit: the barrier is what makes the read see it."""
    kernel = with_tbuf(KERNEL)
    kernel = replace_once(
        kernel,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        LocalTensor<half> tmp = tmpBuf.Get<half>();\n"
        "        Muls(tmp, xLocal, (half)2.0, tileLength);\n"
        "        PipeBarrier<PIPE_ALL>();\n"
        "        half first = tmp.GetValue(0);\n"
        "        Muls(yLocal, xLocal, first, tileLength);\n",
    )
    found = pipe_all(write_operator(tmp_path / "op", kernel=kernel))
    assert all(f.severity == "info" and not f.fixes for f in found)
    assert found and "GetValue" in found[0].message  # it names what the barrier orders, and the narrower sync


def test_barrier_ordering_datacopypad_into_a_tbuf_then_cast_is_silent_without_queues(tmp_path: Path):
    """DataCopyPad (MTE2) fills a TBuf, Cast (vector) reads it, DataCopyPad (MTE3) writes the result: no queue
    orders any of it, the barrier does."""
    kernel = with_tbuf(KERNEL)
    kernel = replace_once(
        kernel,
        "            CopyIn(i);\n            Compute();\n            CopyOut(i);\n",
        "            LocalTensor<half> raw = tmpBuf.Get<half>();\n"
        "            DataCopyPad(raw, xGm[i * tileLength], {1, (uint32_t)(tileLength * 2), 0, 0, 0},"
        " {false, 0, 0, 0});\n"
        "            PipeBarrier<PIPE_ALL>();\n"
        "            Muls(raw, raw, (half)2.0, tileLength);\n"
        "            PipeBarrier<PIPE_ALL>();\n"
        "            DataCopyPad(yGm[i * tileLength], raw,"
        " {1, (uint32_t)(tileLength * 2), 0, 0, 0});\n",
    )
    assert pipe_all(write_operator(tmp_path / "op", kernel=kernel)) == []


def test_tbuf_handed_through_helper_functions_counts_as_a_dependency(tmp_path: Path):
    """The loop passes one TBuf tensor to a copy-in helper and a copy-out helper; the barrier after them orders
    the next iteration's copy-in after this one's copy-out (the parameters are renamed to the caller's tensor)."""
    kernel = with_tbuf(KERNEL)
    kernel = replace_once(
        kernel,
        "            CopyIn(i);\n            Compute();\n            CopyOut(i);\n",
        "            LocalTensor<half> stage = tmpBuf.Get<half>();\n"
        "            Load(stage, i);\n            Store(stage, i);\n"
        "            PipeBarrier<PIPE_ALL>();\n",
    )
    kernel = replace_once(
        kernel,
        "private:\n",
        "private:\n"
        "    __aicore__ inline void Load(LocalTensor<half>& dst, uint32_t i)\n"
        "    {\n        DataCopy(dst, xGm[i * tileLength], tileLength);\n    }\n"
        "    __aicore__ inline void Store(LocalTensor<half>& src, uint32_t i)\n"
        "    {\n        DataCopy(yGm[i * tileLength], src, tileLength);\n    }\n",
    )
    found = pipe_all(write_operator(tmp_path / "op", kernel=kernel))
    assert not any(fix.safe for f in found for fix in f.fixes)
    assert all(f.severity == "info" for f in found)


def test_barrier_in_a_copy_out_loop_on_one_pipe_is_a_note_without_a_stage_gain(tmp_path: Path):
    """A loop that only copies rows out of one dequeued tile (MTE3 after MTE3): there are no stages to overlap, so
    the barrier costs a drain per row, not 'the sum of the stages': a note, with a removal to verify."""
    kernel = replace_once(
        KERNEL,
        "        DataCopy(yGm[progress * tileLength], yLocal, tileLength);\n",
        "        for (uint32_t r = 0; r < 4; r++) {\n"
        "            DataCopy(yGm[progress * tileLength + r * 2048], yLocal[r * 2048], 2048);\n"
        "            PipeBarrier<PIPE_ALL>();\n        }\n",
    )
    (f,) = pipe_all(write_operator(tmp_path / "op", kernel=kernel))
    assert f.severity == "info" and "one drain per iteration" in f.message and "sum of the stages" not in f.message
    (fix,) = f.fixes
    assert not fix.safe and "x on the tile loop" not in fix.title


def test_barrier_in_a_function_nothing_calls_is_silent(tmp_path: Path):
    """A Process variant left in the class but called from nowhere (its caller commented out) never runs."""
    kernel = replace_once(
        KERNEL,
        "            CopyOut(i);\n        }\n    }\n",
        "            CopyOut(i);\n        }\n    }\n"
        "    __aicore__ inline void ProcessOld()\n    {\n"
        "        for (uint32_t i = 0; i < 4; i++) {\n            CopyIn(i);\n            Compute();\n"
        "            CopyOut(i);\n            PipeBarrier<PIPE_ALL>();\n        }\n    }\n",
    )
    kernel = replace_once(kernel, "    op.Process();\n", "    op.Process();  // op.ProcessOld();\n")
    assert pipe_all(write_operator(tmp_path / "op", kernel=kernel)) == []
    called = replace_once(kernel, "    op.Process();  // op.ProcessOld();\n", "    op.ProcessOld();\n")
    assert len(pipe_all(write_operator(tmp_path / "called", kernel=called))) == 1


def _scaled_through_a_scalar(kernel: str, before: str, after: str) -> str:
    """Compute reads the first element of a vector result on the scalar unit and scales by it, with the events
    `before` and `after` the GetValue; a full barrier sits before the EnQue."""
    kernel = with_tbuf(kernel)
    return replace_once(
        kernel,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n        outQueueY.EnQue<half>(yLocal);\n",
        "        LocalTensor<half> tmp = tmpBuf.Get<half>();\n"
        "        Muls(tmp, xLocal, (half)2.0, tileLength);\n"
        f"{before}"
        "        half first = tmp.GetValue(0);\n"
        f"{after}"
        "        Muls(yLocal, xLocal, first, tileLength);\n"
        "        PipeBarrier<PIPE_ALL>();\n"
        "        outQueueY.EnQue<half>(yLocal);\n",
    )


def test_a_getvalue_fenced_by_its_own_events_leaves_the_barrier_removable(tmp_path: Path):
    """The reference's pattern: a wait into the scalar pipe before the read and one out of it after. Those events
    order the read; the full barrier before the EnQue only serialises the stages. Both spellings of the events."""
    intrinsic = _scaled_through_a_scalar(
        KERNEL,
        "        set_flag(PIPE_V, PIPE_S, EVENT_ID0);\n        wait_flag(PIPE_V, PIPE_S, EVENT_ID0);\n",
        "        set_flag(PIPE_S, PIPE_V, EVENT_ID0);\n        wait_flag(PIPE_S, PIPE_V, EVENT_ID0);\n",
    )
    api = _scaled_through_a_scalar(
        KERNEL,
        "        SetFlag<HardEvent::V_S>(EVENT_ID1);\n        WaitFlag<HardEvent::V_S>(EVENT_ID1);\n",
        "        SetFlag<HardEvent::S_V>(EVENT_ID2);\n        WaitFlag<HardEvent::S_V>(EVENT_ID2);\n",
    )
    for i, kernel in enumerate((intrinsic, api)):
        (f,) = pipe_all(write_operator(tmp_path / f"op{i}", kernel=kernel))
        assert f.severity == "warning" and f.fixes and f.fixes[0].safe, f.message


def test_a_getvalue_fenced_on_one_side_only_keeps_the_barrier(tmp_path: Path):
    """A wait into the scalar pipe before the read but none out of it: the next tile's Muls may overwrite the
    buffer before the read lands, and the full barrier is what stops it. Likewise a vector call between the wait
    and the read."""
    one_side = _scaled_through_a_scalar(
        KERNEL, "        SetFlag<HardEvent::V_S>(EVENT_ID1);\n        WaitFlag<HardEvent::V_S>(EVENT_ID1);\n", ""
    )
    broken = _scaled_through_a_scalar(
        KERNEL,
        "        SetFlag<HardEvent::V_S>(EVENT_ID1);\n        WaitFlag<HardEvent::V_S>(EVENT_ID1);\n"
        "        Adds(tmp, tmp, (half)1.0, tileLength);\n",
        "        SetFlag<HardEvent::S_V>(EVENT_ID2);\n        WaitFlag<HardEvent::S_V>(EVENT_ID2);\n",
    )
    for i, kernel in enumerate((one_side, broken)):
        found = pipe_all(write_operator(tmp_path / f"op{i}", kernel=kernel))
        assert found and all(f.severity == "info" and not f.fixes for f in found)
        assert "GetValue on tmp" in found[0].message


def test_a_setvalue_into_an_output_tile_the_queue_hands_on_leaves_the_barrier_removable(tmp_path: Path):
    """Compute fills its output tile with SetValue (no pipe touches it there) and enqueues it; CopyOut dequeues it
    and copies it out: the queue orders the two stages, the barrier before the EnQue does nothing more. A SetValue
    followed by a vector call on the same tile, in the same stage, is ordered by the barrier between them."""
    set_then_enque = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n        outQueueY.EnQue<half>(yLocal);\n",
        "        yLocal.SetValue(0, (half)1.0);\n"
        "        PipeBarrier<PIPE_ALL>();\n"
        "        outQueueY.EnQue<half>(yLocal);\n",
    )
    (f,) = pipe_all(write_operator(tmp_path / "op", kernel=set_then_enque))
    assert f.severity == "warning" and f.fixes and f.fixes[0].safe, f.message
    same_stage = replace_once(
        KERNEL,
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
        "        yLocal.SetValue(0, (half)1.0);\n        PipeBarrier<PIPE_ALL>();\n"
        "        Muls(yLocal, xLocal, (half)2.0, tileLength);\n",
    )
    found = pipe_all(write_operator(tmp_path / "op2", kernel=same_stage))
    assert found and all(not f.fixes for f in found) and "SetValue on yLocal" in found[0].message
