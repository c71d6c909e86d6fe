"""Learn from the user: when an edit of theirs makes a run of a kernel correct and faster, that is a trajectory.

The language server sees runs before and after an edit. `learn_from_runs` compares two runs of the same case on
different sources: the later one must pass its golden (correct True, not merely "ran") and be at least
MIN_SLOWDOWN faster. The motif is the first one (in the registry's order) whose slow pattern the edit removed: its
detector found sites before and fewer after. An edit no detector explains is kept as "user-edit", so the user's
next kernel can still be shown the diff that helped this one.
"""

from __future__ import annotations

import math

from tilewise.analysis.manifest import Case
from tilewise.analysis.motifs import MOTIFS, MotifContext
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import Measurement
from tilewise.search.bank.features import kernel_features, profile
from tilewise.search.bank.mine import MIN_SLOWDOWN
from tilewise.search.bank.store import CaseTimes, Trajectory, unified_diff

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
    if before.case != after.case:
        return None
    changed = sorted(p.rsplit("/", 1)[-1] for p, t in _texts(after_op).items() if t != _texts(before_op).get(p))
    return trajectory_between(
        before_op,
        [(case, before)],
        after_op,
        [(case, after)],
        motif=removed_motif(before_op, after_op) or USER_EDIT,
        source=source,
        description=f"the user's edit of {', '.join(changed)} (case {case.name})",
    )


def trajectory_between(
    before_op: Operator,
    before: list[tuple[Case, Measurement]],
    after_op: Operator,
    after: list[tuple[Case, Measurement]],
    *,
    motif: str,
    source: str,
    description: str,
) -> Trajectory | None:
    """The user's trajectory from `before_op` to `after_op` over the same cases: None unless the sources differ,
    every later run passes its golden (correct True, not merely "ran") and the geomean gain is at least
    MIN_SLOWDOWN."""
    old, new = _texts(before_op), _texts(after_op)
    if old == new or not after or len(before) != len(after):
        return None
    times = []
    for (case, b), (_, a) in zip(before, after, strict=True):
        if not (b.ok and b.correct is not False and a.ok and a.correct is True and b.time_us and a.time_us):
            return None
        times.append(CaseTimes(case=case.name, fast_us=round(a.time_us, 4), slow_us=round(b.time_us, 4)))
    speedup = math.exp(sum(math.log(t.slow_us / t.fast_us) for t in times) / len(times))
    if speedup < MIN_SLOWDOWN:
        return None
    return Trajectory(
        motif=motif,
        operator=after_op.model.operator or source,
        source=source,
        description=description,
        diff=unified_diff(old, new, str(after_op.project.root)),
        slow=profile(before),
        fast=profile(after),
        cases=times,
        speedup=round(speedup, 4),
        features=kernel_features(after_op, after),
        origin="user",
    )
