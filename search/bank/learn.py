"""Learn from the user: when an edit of theirs makes a run of a kernel correct and faster, that is a trajectory.

The language server sees runs before and after an edit. `learn_from_runs` compares two runs of the same case on
different sources: the later one must pass its golden (correct True, not merely "ran") and be at least
MIN_SLOWDOWN faster. The motif is the first one (in the registry's order) whose slow pattern the edit removed: its
detector found sites before and fewer after. An edit no detector explains is kept as "user-edit", so the user's
next kernel can still be shown the diff that helped this one.
"""

from __future__ import annotations

from analysis.manifest import Case
from analysis.motifs import MOTIFS, MotifContext
from analysis.operator import Operator
from device.protocol import Measurement
from search.bank.features import kernel_features, profile
from search.bank.mine import MIN_SLOWDOWN
from search.bank.store import CaseTimes, Trajectory, unified_diff

USER_EDIT = "user-edit"


def _texts(op: Operator) -> dict[str, str]:
    return {p: sf.text for p, sf in op.sources.items()}


def removed_motif(before: Operator, after: Operator) -> str | None:
    """The first motif whose slow pattern is in `before` and less present in `after`, or None."""
    was, now = MotifContext(before), MotifContext(after)
    for motif in MOTIFS.values():
        try:
            gone = len(motif.detect(was)) > len(motif.detect(now))
        except Exception:  # noqa: BLE001 - a detector tripping on a half-typed kernel explains nothing
            continue
        if gone:
            return motif.id
    return None


def learn_from_runs(
    before_op: Operator, before: Measurement, after_op: Operator, after: Measurement, case: Case, source: str
) -> Trajectory | None:
    """A trajectory when `after` (on the edited sources) is correct and at least MIN_SLOWDOWN faster than
    `before` on the same case; None otherwise."""
    old, new = _texts(before_op), _texts(after_op)
    if old == new or before.case != after.case:
        return None
    if not (before.ok and before.correct is not False and after.ok and after.correct is True):
        return None
    if not before.time_us or not after.time_us or before.time_us / after.time_us < MIN_SLOWDOWN:
        return None
    motif = removed_motif(before_op, after_op) or USER_EDIT
    changed = sorted(p.rsplit("/", 1)[-1] for p in new if new[p] != old.get(p))
    return Trajectory(
        motif=motif,
        operator=after_op.model.operator or source,
        source=source,
        description=f"the user's edit of {', '.join(changed)} (case {case.name})",
        diff=unified_diff(old, new, str(after_op.project.root)),
        slow=profile([(case, before)]),
        fast=profile([(case, after)]),
        cases=[CaseTimes(case=case.name, fast_us=round(after.time_us, 4), slow_us=round(before.time_us, 4))],
        speedup=round(before.time_us / after.time_us, 4),
        features=kernel_features(after_op, [(case, after)]),
        origin="user",
    )
