"""unpaired-flag matches event ids by value, not by spelling (issue 13).

Two patterns from public kernels were reported as unpaired although every SetFlag has its WaitFlag: ids kept in
an array indexed by the slot in the main loop and by another variable in the drain loop, and ids rotated through
variables for triple buffering. Both are rebuilt on this project's scale operator (tests/opgen.py); a flag whose
constant ids really never meet still fires (a hang is an error), one whose ids are variables is only a note, and a
helper's flags on ids its caller passes in are not judged (hicann/ops-nn's nd2nz helper, read for issue 13).
"""

from __future__ import annotations

from pathlib import Path

from opgen import KERNEL, replace_once, write_operator

from tilewise.analysis.lint import lint
from tilewise.analysis.operator import load_operator


def unpaired(root: Path):
    op = load_operator(root)
    assert not op.model.syntax_errors
    return [f for f in lint(op) if f.rule == "unpaired-flag"]


def with_process_head(code: str, members: str = "") -> str:
    kernel = replace_once(
        KERNEL,
        "        uint32_t loops = blockLength / tileLength;\n",
        "        uint32_t loops = blockLength / tileLength;\n" + code,
    )
    return replace_once(kernel, "    TPipe pipe;\n", "    TPipe pipe;\n" + members)


ARRAY_SLOTS = """\
        for (int32_t s = 0; s < 2; s++) {
            evFree[s] = static_cast<event_t>(pipe.AllocEventID<HardEvent::V_MTE2>());
        }
        for (uint32_t t = 0; t < loops; t++) {
            int32_t slot = t % 2;
            if (t >= 2) {
                WaitFlag<HardEvent::V_MTE2>(evFree[slot]);
            }
            SetFlag<HardEvent::V_MTE2>(evFree[slot]);
        }
        for (int32_t s = 0; s < 2; s++) {
            WaitFlag<HardEvent::V_MTE2>(evFree[s]);
        }
"""

ROTATION = """\
        event_t e0 = EVENT_ID0;
        event_t e1 = EVENT_ID1;
        event_t e2 = EVENT_ID2;
        event_t tmp = EVENT_ID2;
        SetFlag<HardEvent::MTE3_MTE2>(e1);
        SetFlag<HardEvent::MTE3_MTE2>(e2);
        for (uint32_t t = 0; t < loops; t++) {
            WaitFlag<HardEvent::MTE3_MTE2>(e1);
            SetFlag<HardEvent::MTE3_MTE2>(e0);
            tmp = e0;
            e0 = e1;
            e1 = e2;
            e2 = tmp;
        }
        WaitFlag<HardEvent::MTE3_MTE2>(e1);
        WaitFlag<HardEvent::MTE3_MTE2>(e2);
"""


def test_array_ids_indexed_by_different_variables_pair(tmp_path: Path):
    kernel = with_process_head(ARRAY_SLOTS, "    event_t evFree[2];\n")
    assert unpaired(write_operator(tmp_path / "op", kernel=kernel)) == []


def test_ids_rotated_through_variables_pair(tmp_path: Path):
    assert unpaired(write_operator(tmp_path / "op", kernel=with_process_head(ROTATION))) == []


def test_constant_ids_that_never_meet_still_fire(tmp_path: Path):
    code = (
        "        SetFlag<HardEvent::V_MTE2>(EVENT_ID1);\n        WaitFlag<HardEvent::V_MTE2>(EVENT_ID2);\n"
        "        SetFlag<HardEvent::MTE3_V>(EVENT_ID3);\n        WaitFlag<HardEvent::MTE3_V>(EVENT_ID3);\n"
    )
    found = unpaired(write_operator(tmp_path / "op", kernel=with_process_head(code)))
    assert sorted((f.line, f.severity) for f in found) == [(21, "warning"), (22, "error")]  # the wait hangs


def test_variable_ids_that_never_meet_are_only_a_note(tmp_path: Path):
    # ids kept in two arrays: their values are unknown, so "never set" is not proved
    code = ARRAY_SLOTS.replace("WaitFlag<HardEvent::V_MTE2>(evFree[s]);", "WaitFlag<HardEvent::V_MTE2>(evUsed[s]);")
    code = code.replace(
        "            if (t >= 2) {\n                WaitFlag<HardEvent::V_MTE2>(evFree[slot]);\n            }\n", ""
    )
    kernel = with_process_head(code, "    event_t evFree[2];\n    event_t evUsed[2];\n")
    found = unpaired(write_operator(tmp_path / "op", kernel=kernel))
    assert [f.severity for f in found] == ["info", "info"] and "proves nothing" in found[0].message


def test_an_id_passed_in_by_the_caller_is_not_judged(tmp_path: Path):
    # a helper that hands the flags over for its caller: the ids are its parameters
    kernel = replace_once(
        KERNEL,
        "    __aicore__ inline void Process()\n",
        "    __aicore__ inline void Hand(int32_t evIn, int32_t evOut)\n    {\n"
        "        SetFlag<HardEvent::V_MTE2>(evIn);\n        WaitFlag<HardEvent::MTE3_V>(evOut);\n"
        "    }\n    __aicore__ inline void Process()\n",
    )
    assert unpaired(write_operator(tmp_path / "op", kernel=kernel)) == []


def test_flags_through_the_intrinsics_or_a_macro_over_them_are_partners(tmp_path: Path):
    code = (
        "        SetFlag<HardEvent::M_MTE1>(EVENT_ID0);\n        WAIT_FLAG(M, MTE1, EVENT_ID0);\n"
        "        set_flag(PIPE_V, PIPE_MTE2, EVENT_ID1);\n        WaitFlag<HardEvent::V_MTE2>(EVENT_ID1);\n"
    )
    assert unpaired(write_operator(tmp_path / "op", kernel=with_process_head(code))) == []


# ops-nn hold-out (dequant_bias): both slots' MTE3_MTE2 flags are set before the loop, and each iteration waits on
# the slot it picks with a ternary into a local: `auto id = (t % 2 == 0) ? evPing : evPong; WaitFlag(id);`.
PING_PONG = """\
        event_t evPing = static_cast<event_t>(pipe.AllocEventID<HardEvent::MTE3_MTE2>());
        event_t evPong = static_cast<event_t>(pipe.AllocEventID<HardEvent::MTE3_MTE2>());
        SetFlag<HardEvent::MTE3_MTE2>(evPing);
        SetFlag<HardEvent::MTE3_MTE2>(evPong);
        for (uint32_t t = 0; t < loops; t++) {
            auto slotId = (t % 2 == 0) ? evPing : evPong;
            WaitFlag<HardEvent::MTE3_MTE2>(slotId);
        }
"""


def test_a_slot_id_picked_by_a_ternary_pairs_with_both_arms(tmp_path: Path):
    assert unpaired(write_operator(tmp_path / "op", kernel=with_process_head(PING_PONG))) == []


def test_an_arm_no_wait_can_pick_is_still_reported(tmp_path: Path):
    code = replace_once(PING_PONG, "(t % 2 == 0) ? evPing : evPong", "(t % 2 == 0) ? evPing : evPing")
    (f,) = unpaired(write_operator(tmp_path / "op", kernel=with_process_head(code)))
    assert "evPong" in f.message
