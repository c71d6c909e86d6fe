"""The experience bank in the editor (search/bank): the banks read once and again only when the user's bank file
changes, the motifs that fit an analysed operator, and learning from the user's own runs.

Both jobs are failure-isolated: a bank that cannot be read or a detector that trips costs the motif suggestions,
never the lint diagnostics of the analysis they join; a trajectory that cannot be learned or saved is logged, never
fails the run it followed.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tilewise.analysis.findings import Finding
from tilewise.analysis.manifest import Case
from tilewise.analysis.motifs import MotifContext
from tilewise.analysis.operator import Operator, load_operator
from tilewise.analysis.rules import RuleContext
from tilewise.search.bank.store import BankFile, Trajectory, load_banks, save_bank, user_bank_path
from tilewise.search.bank.suggest import Suggestion, retrieve

if TYPE_CHECKING:
    from tilewise.device.protocol import Measurement

log = logging.getLogger("tilewise.lsp")


class BankCache:
    """The shipped bank and the user's, merged; read again only when the user's file (its path or mtime) changes,
    so an analysis on every keystroke does not parse the banks each time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: tuple[str, int | None] | None = None
        self._bank: BankFile | None = None

    def get(self) -> BankFile:
        path = user_bank_path()
        try:
            mtime: int | None = path.stat().st_mtime_ns
        except OSError:
            mtime = None
        key = (str(path), mtime)
        with self._lock:
            if self._bank is None or key != self._key:
                bank, problems = load_banks(path)
                for line in problems:
                    log.warning("experience bank: %s", line)
                self._bank, self._key = bank, key
            return self._bank


def motif_suggestions(
    op: Operator, findings: list[Finding], context: RuleContext, banks: BankCache, bottleneck: str | None
) -> list[Suggestion]:
    """The motifs whose slow pattern is in `op`, ranked by their evidence; the analysis's lint `findings` and its
    rules' view (`context`) are reused, so lint does not run twice. Empty when anything fails (logged)."""
    try:
        ctx = MotifContext(op, context.chip)
        ctx.rules, ctx.findings = context, findings
        return retrieve(op, banks.get(), bottleneck=bottleneck, chip=context.chip, ctx=ctx)
    except Exception:  # the lint diagnostics must survive a failing retrieval
        log.exception("retrieving the motifs of %s failed", op.project.root)
        return []


@dataclass(frozen=True)
class StoredRun:
    """A `tilewise/run` of one case, with the texts it ran on: what the next run of that case is compared with."""

    texts: dict[str, str]
    measurement: Measurement


def learn_from_user(
    root: str, before: StoredRun, after: StoredRun, case: Case, *, device: str, chip: str
) -> Trajectory | None:
    """The trajectory from `before` to `after` when the user's edit made the case correct and faster (search/bank/
    learn.py), added to the user's bank; None otherwise. Runs on a worker thread; never raises."""
    from tilewise.search.bank.learn import learn_from_runs

    try:
        if before.texts == after.texts:
            return None
        before_op = load_operator(root, overlay=dict(before.texts))
        after_op = load_operator(root, overlay=dict(after.texts))
        found = learn_from_runs(before_op, before.measurement, after_op, after.measurement, case, root)
        if found is None:
            return None
        held = save_bank(user_bank_path(), [found], device=device, chip=chip)
        log.info(
            "learned from the user's edit of %s: %s, %.2fx on case %s (the user's bank holds %d)",
            root,
            found.motif,
            found.speedup,
            case.name,
            held,
        )
        return found
    except Exception:  # learning must never fail the run it followed
        log.exception("learning from the runs of %s failed", root)
        return None
