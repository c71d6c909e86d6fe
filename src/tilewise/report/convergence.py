"""A tune's convergence as a chart payload, built from the tuner's event stream: the CLI's `--html` report and the
language server's live view (`tilewise/convergence` notifications) read the same events through one recorder, so
the two pictures cannot disagree. Screened candidates keep their place in the order the search proposed them,
which the final `TuneResult` no longer holds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tilewise.report.payloads import ConvergencePayload, ConvergencePoint
from tilewise.search.tuner import Trial, TrialEvent, TuneResult

if TYPE_CHECKING:
    from tilewise.search.optimize import Step


@dataclass
class ConvergenceRecorder:
    """Feed it every `TrialEvent` of one search (`add`), then the result (`finish`); `payload()` at any time."""

    operator: str
    strategy: str
    budget: int
    cases: list[str] = field(default_factory=list)
    source: str = "tune"
    points: list[ConvergencePoint] = field(default_factory=list)
    shipped_us: float | None = None
    shipped_config: dict[str, int] = field(default_factory=dict)
    best_us: float | None = None
    best_config: dict[str, int] | None = None
    done: bool = False
    stopped: bool = False

    def add(self, ev: TrialEvent) -> None:
        if ev.trial is not None:
            self.points.append(_point(ev.trial, ev.evaluations))
            if ev.trial.index == 0 and not ev.trial.screened:  # the shipped configuration is measured first
                self.shipped_config = dict(ev.trial.config)
                self.shipped_us = ev.trial.time_us if ev.trial.ok else None
        if ev.baseline_us is not None:
            self.shipped_us = ev.baseline_us
        if ev.best_us is not None:
            self.best_us, self.best_config = ev.best_us, dict(ev.best or {})
        if ev.kind in ("done", "stopped"):
            self.done, self.stopped = True, ev.kind == "stopped"

    def add_step(self, step: Step, best_us: float | None) -> None:
        """One step of `optimize`'s closed loop (a tiling search, a motif or LLM rewrite): a point at the
        measurements made so far, labelled with what it tried; its time is the cases' sum, as the loop compares."""
        measured = (self.points[-1].evaluation if self.points else 0) + max(step.evaluations, 1)
        if step.stage == "baseline":
            self.shipped_us = step.time_us
        accepted = step.time_us is not None and (step.accepted or step.stage == "baseline")
        self.points.append(
            ConvergencePoint(
                evaluation=measured,
                config={},
                time_us=step.time_us,
                status="ok" if step.time_us is not None else "failed",
                reason=None if accepted else step.detail,
                label=f"{step.stage}: {step.what}" if step.what else step.stage,
            )
        )
        if best_us is not None:
            self.best_us = best_us

    def finish(self, result: TuneResult) -> None:
        """The result's figures win over the stream's (the tuner may re-rank the best across cases at the end)."""
        self.done, self.stopped = True, result.stopped
        self.shipped_config = dict(result.baseline)
        self.shipped_us = result.baseline_us
        self.best_us = result.best_us
        self.best_config = dict(result.best) if result.best else None

    def payload(self) -> ConvergencePayload:
        return ConvergencePayload(
            source="optimize" if self.source == "optimize" else "tune",
            operator=self.operator,
            strategy=self.strategy,
            budget=self.budget,
            cases=list(self.cases),
            shipped_us=self.shipped_us,
            shipped_config=dict(self.shipped_config),
            best_us=self.best_us,
            best_config=dict(self.best_config) if self.best_config is not None else None,
            points=list(self.points),
            done=self.done,
            stopped=self.stopped,
        )


def _point(trial: Trial, evaluations: int) -> ConvergencePoint:
    if trial.screened:
        # not measured: drawn at the measurements made so far, so it sits where the search proposed it
        return ConvergencePoint(
            evaluation=evaluations, config=dict(trial.config), status="screened", reason=trial.error
        )
    return ConvergencePoint(
        evaluation=trial.index + 1,
        config=dict(trial.config),
        time_us=trial.time_us if trial.ok else None,
        status="ok" if trial.ok else "failed",
        cached=trial.cached,
        reason=None if trial.ok else trial.error,
    )
