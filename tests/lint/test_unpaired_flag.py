"""unpaired-flag matches event ids by value, not by spelling (issue 13).

Two patterns from public kernels were reported as unpaired although every SetFlag has its WaitFlag: ids kept in
an array indexed by the slot in the main loop and by another variable in the drain loop, and ids rotated through
variables for triple buffering. Both are rebuilt on this project's scale operator (tests/opgen.py); a flag whose
ids really never meet still fires.
"""

from __future__ import annotations

from pathlib import Path

from opgen import KERNEL, replace_once, write_operator

from analysis.lint import lint
from analysis.operator import load_operator


def unpaired(root: Path):
    op = load_operator(root)
    assert not op.model.syntax_errors
    return [f for f in lint(op) if f.rule == "unpaired-flag"]


def with_process_head(code: str, members: str = "") -> str:
    kernel = replace_once(KERNEL, "        uint32_t loops = blockLength / tileLength;\n",
                          "        uint32_t loops = blockLength / tileLength;\n" + code)
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


def test_ids_that_never_meet_still_fire(tmp_path: Path):
    code = ARRAY_SLOTS.replace("WaitFlag<HardEvent::V_MTE2>(evFree[s]);", "WaitFlag<HardEvent::V_MTE2>(evUsed[s]);")
    code = code.replace("            if (t >= 2) {\n                WaitFlag<HardEvent::V_MTE2>(evFree[slot]);\n"
                        "            }\n", "")
    kernel = with_process_head(code, "    event_t evFree[2];\n    event_t evUsed[2];\n")
    found = unpaired(write_operator(tmp_path / "op", kernel=kernel))
    assert sorted(f.severity for f in found) == ["error", "warning"]  # the wait hangs; the set is never awaited
    rotation = ROTATION.replace("WaitFlag<HardEvent::MTE3_MTE2>", "WaitFlag<HardEvent::MTE3_V>")
    found = unpaired(write_operator(tmp_path / "op2", kernel=with_process_head(rotation)))
    assert {f.severity for f in found} == {"error", "warning"}  # another event kind: nothing pairs
