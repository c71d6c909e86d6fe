"""The tuning loop: propose configurations with a strategy, measure them on a device, keep the fastest correct one.

The objective is the geometric mean of the simulated time over the cases; a configuration counts only if every case
builds, runs clean and is correct (against the golden, or without one against the shipped configuration's outputs).
`Tuner.events()` yields one event per trial, so the CLI can draw progress and the language server can stream it.
Evaluations run in parallel (subprocesses do the work); every result goes to the persistent cache as it arrives.
Tunes in other processes may share that cache: a measurement another one is making at that moment is waited for,
not made twice (search/cache.py's claims).
Where a measurement runs is the executor's business (search/executors.py: this machine, or a Ray cluster); the
screening, the cache and the strategy stay here, so neither the search nor its results depend on where.

Before a candidate costs a measurement it is screened (`Device.screen`: the host tiling and the kernel's set-up
alone). A candidate screened out is never measured and does not count against the budget; the strategy is told it
failed, and why, so that it can steer away from its neighbourhood. The search ends when the budget is spent, or
when no configuration is left that neither was proposed nor is ruled out by the static checks (`Strategy.propose`):
a strategy's guesses steer it, they do not stop it. Screenings the shipped configuration fails too are not held
against a candidate when the shipped configuration runs correct (the shipped configuration is the reference: it is
measured whatever it does, and a screening it passes the run of is wrong about the kernel there).

The search is deterministic: the same seed and space give the same proposals and the same best from an empty
cache or a warm one, whatever order parallel results arrive in. Proposals are asked for in order, at most
`workers` ahead of the results told, and results are told to the strategy in the order they were proposed: what
the strategy has been told when it is asked for a proposal depends on nothing but the proposal's place.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import replace
from typing import Literal, cast

import numpy as np
from pydantic import BaseModel

from tilewise.analysis.manifest import Case
from tilewise.analysis.model import KnobRole
from tilewise.analysis.model_error import kinds_of_roles, load_model_error
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import (
    TRANSIENT_ERROR_KINDS,
    Device,
    Measurement,
    RunError,
    RunRequest,
    RunWarning,
    Screening,
)
from tilewise.search.cache import BestConfig, ResultsCache, source_hash
from tilewise.search.dtype_paths import DtypePaths, check_cases
from tilewise.search.executors import Executor, LocalExecutor
from tilewise.search.inert import inert_knobs, without
from tilewise.search.outcome import failure_kind, overrun_message, overruns, problem_of
from tilewise.search.space import (
    Config,
    KnobSpec,
    SearchSpace,
    build_space,
    config_texts,
    fit_space,
    shipped_buffers,
    violations,
)
from tilewise.search.strategies import STRATEGIES


class Trial(BaseModel):
    index: int  # its place among the measured trials (the shipped configuration is 0), or among the screened ones
    config: Config
    time_us: float | None = None
    ok: bool = False
    error: str | None = None
    # What kind of failure (a run error's or a screening's kind, "wrong_output", a new overrun's warning kind): the
    # strategy is told it, to learn where not to look.
    failure: str | None = None
    screened: bool = False  # refused by the screening before any measurement (`error` says why); not in the budget
    cached: bool = False
    per_case: dict[str, float | None] = {}
    wall_s: float = 0.0


class TrialEvent(BaseModel):
    kind: Literal["trial", "improved", "done", "stopped"]
    trial: Trial | None = None
    best: Config | None = None
    best_us: float | None = None
    baseline_us: float | None = None
    evaluations: int = 0  # measured trials so far, the shipped configuration's included
    budget: int = 0
    screened: int = 0  # candidates screened out so far (not measured, not in the budget)


class TuneResult(BaseModel):
    operator: str
    strategy: str
    budget: int
    seed: int
    cases: list[str]
    space: SearchSpace
    baseline: Config
    baseline_us: float | None
    best: Config | None
    best_us: float | None
    speedup: float | None
    evaluations: int
    cached: int
    failed: list[Trial]  # measured and refused
    trials: list[Trial]  # measured, in the order proposed
    screened: int = 0
    screened_trials: list[Trial] = []  # screened out before any measurement, in the order proposed
    # The best configuration's speedup over the shipped one on each case, and the cases it makes slower: the best
    # wins on the geometric mean, which a case that loses can hide.
    # Knobs left out of the space because no value tried changed the tiling the kernel is handed on these cases.
    inert: list[str] = []
    per_case_speedup: dict[str, float] = {}
    # The dtype paths the OpDef declares beyond the tuned cases (search/dtype_paths.py): the check cases the best
    # was run correct on, and those the shipped configuration itself fails (with why), which nothing is held to.
    dtype_checks: list[str] = []
    dtype_broken: dict[str, str] = {}
    slower_cases: list[str] = []
    stopped: bool = False
    executor: str = "local"  # where the measurements ran (search/executors.py)
    # Set when the gain is within the timing model's typical error for the kinds of change the best configuration
    # makes (analysis/model_error.py): a prediction that needs hardware to confirm.
    uncertain: str | None = None


log = logging.getLogger(__name__)

# Candidates the screening may refuse per unit of budget before the search gives up: a space where nearly
# everything is infeasible must still end.
SCREENINGS_PER_BUDGET = 8
# What a kept screening holds: bumped when a Screening field a tune reads is added (2: the buffers).
SCREEN_FORMAT = ":screen=2"
# How often a tune waiting for another process's measurement of the same configuration looks for its result.
CLAIM_POLL_S = 0.2

# A screening failure as the shipped configuration's own screening may have it: kind and site.
ScreenSite = tuple[str | None, str | None, int | None]


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


class Tuner:
    def __init__(
        self,
        op: Operator,
        device: Device,
        cases: list[Case],
        *,
        strategy: str = "evo",
        budget: int = 32,
        seed: int = 0,
        cache: ResultsCache | None = None,
        workers: int = 2,
        space: SearchSpace | None = None,
        data_seed: int = 0,
        inputs: dict[str, np.ndarray] | None = None,
        executor: Executor | None = None,
    ):
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy '{strategy}'; use one of {', '.join(STRATEGIES)}")
        self.op, self.device, self.cases = op, device, cases
        self.executor = executor or LocalExecutor(device)  # where `Device.run` happens; screenings stay here
        self.budget, self.seed, self.cache, self.workers = budget, seed, cache, max(1, workers)
        self.data_seed = data_seed  # inputs are drawn from this seed: the same for every strategy, so results share
        self.inputs = inputs or {}  # user-given arrays (`--input`), fed to every evaluation instead of random ones
        self._inputs_key = _arrays_digest(self.inputs)
        self.space = space or build_space(op, device.chip, cases)
        self._static_trusted: bool | None = None  # whether space.violations fits this operator (_violations)
        self.strategy = STRATEGIES[strategy](self.space, seed, self._feasible)
        self.inert: list[KnobSpec] | None = None  # knobs left out as changing nothing (prune_inert), once known
        self.strategy_name = strategy
        self.trials: list[Trial] = []
        self.screened_trials: list[Trial] = []
        self.screen_limit = SCREENINGS_PER_BUDGET * max(1, budget)
        # Screenings already made, by (sources' hash, configuration, case): none is paid for twice in a tune.
        self._screens: dict[tuple[str, tuple[tuple[str, int], ...], str], Screening] = {}
        # What the shipped configuration's own screening fails on, per case: a candidate may fail the same way.
        self.baseline_screen: dict[str, set[ScreenSite]] = {}
        self.baseline_outputs: dict[str, list[np.ndarray]] = {}
        # Memory overruns the shipped configuration itself makes, per case: a candidate may make those (the kernel
        # does whatever the tiling), never new ones, however right its outputs happen to be on this data.
        self.baseline_overruns: dict[str, set[tuple[str, str | None, int | None]]] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.has_golden = bool(op.manifest and op.manifest.golden)
        self._tuned = {c.name for c in cases}
        # The dtype paths the OpDef declares and the tuned cases leave out: the best must still run them correct.
        self.dtype_paths = DtypePaths(check_cases(op, cases), self._check_run)
        self.base_texts = {p: sf.text for p, sf in op.sources.items()}

    # ---- control ----------------------------------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()

    def _feasible(self, config: Config) -> bool:
        return not self._violations(config)

    def _violations(self, config: Config) -> list[str]:
        """The static checks' reasons against `config` (space.violations), unless they refuse the shipped
        configuration too: then their estimate does not fit this operator (buffers in branches that never run
        together, a size the model misreads), and the screening and the runs judge instead."""
        if self._static_trusted is None:
            self._static_trusted = not violations(self.op, self.space.baseline(), self.device.chip)
        return violations(self.op, config, self.device.chip) if self._static_trusted else []

    def prune_inert(self) -> list[KnobSpec]:
        """Leave out the tiling function's knobs that hand the kernel the shipped tiling whatever their value
        (search/inert.py), and fit the tile lengths' and divisors' domains to the UB (`fit_domains`); the search
        then runs over the rest. Done once, before the first measurement."""
        if self.inert is None:
            self.inert = inert_knobs(self.space, self.cases, self._screen_config)
            if self.inert:
                self.space = without(self.space, self.inert)
            self.fit_domains()
            self.strategy = STRATEGIES[self.strategy_name](self.space, self.seed, self._feasible)
        return self.inert

    def fit_domains(self) -> None:
        """Fit the inferred tile lengths' and divisors' domains to the UB (space.fit_space), from the shipped
        configuration's buffers on each case: as its screening made them, else as the static model sizes them."""
        baseline = self.space.baseline()
        cases = [shipped_buffers(self.op, self._screen_config(baseline, case), baseline) for case in self.cases]
        self.space = fit_space(self.space, [c for c in cases if c], self.device.chip.ub_bytes)

    # ---- the loop ---------------------------------------------------------------------------------------------
    def events(self) -> Iterator[TrialEvent]:
        self.prune_inert()
        best: Trial | None = None
        baseline = self.space.baseline()
        first = self._evaluate(baseline, is_baseline=True)  # the shipped configuration: the reference for speed
        self.trials.append(first)
        self.strategy.seed(baseline, first.time_us if first.ok else None)  # the search starts from what ships
        if first.ok:
            best = first
        yield self._event("improved" if first.ok else "trial", first, best)
        if not self.space.knobs:
            yield self._event("done", None, best)
            return
        if first.ok:  # (a shipped configuration that fails when run shows the screening right about it)
            self._screen_baseline(baseline)
        # Proposals in flight, oldest first. A proposal is asked for only once the results before it, save the
        # last `workers`, have been told (in proposal order): the strategy's state when asked depends on the
        # proposal's place alone, never on which evaluation finished first or came from the cache.
        window: deque[tuple[Config, Future[Trial]]] = deque()
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            while not self._stop.is_set():
                while len(window) < self.workers and self._room(len(window)) and not self._stop.is_set():
                    config = self.strategy.propose()
                    if config is None:  # nothing new until it hears more (or ever)
                        break
                    window.append((config, pool.submit(self._evaluate, config)))
                if not window:
                    break
                config, fut = window[0]
                while not self._stop.is_set() and not wait([fut], timeout=0.2).done:
                    pass
                if self._stop.is_set():
                    break
                window.popleft()
                trial = fut.result()
                if trial.screened:
                    trial.index = len(self.screened_trials)
                    self.screened_trials.append(trial)
                    self.strategy.tell(config, None, failure=trial.failure)
                    yield self._event("trial", trial, best)
                    continue
                trial.index = len(self.trials)
                self.trials.append(trial)
                # about to become the best: only if every declared dtype path still runs correct
                if (
                    trial.ok
                    and trial.time_us is not None
                    and _faster(trial.time_us, best)
                    and (wrong := self.dtype_paths.problem(config, baseline)) is not None
                ):
                    trial.ok, trial.error, trial.failure = False, wrong, "dtype_path"
                self.strategy.tell(config, trial.time_us if trial.ok else None, failure=trial.failure)
                improved = trial.time_us is not None and trial.ok and _faster(trial.time_us, best)
                if improved:
                    best = trial
                    self._remember(best)
                yield self._event("improved" if improved else "trial", trial, best)
            if self._stop.is_set():
                for _, fut in window:
                    fut.cancel()
        yield self._event("stopped" if self._stop.is_set() else "done", None, best)

    def _room(self, in_flight: int) -> bool:
        """Whether another proposal may be asked for: measurements left in the budget beyond those in flight (any
        of which may yet be screened out, giving its place back), and screenings left."""
        return len(self.trials) + in_flight < self.budget and len(self.screened_trials) < self.screen_limit

    def _remember(self, best: Trial) -> None:
        """Record the best so far against the untouched sources (the editor shows it again when reopened)."""
        base = self.trials[0]
        if self.cache is None or not base.ok or best.index == 0:
            return
        if base.time_us is None or best.time_us is None:  # an ok trial always has its time
            return
        try:
            self.cache.put_best(
                source_hash(self.base_texts),
                self.device.name,
                self.device.chip.name,
                BestConfig(
                    config=best.config,
                    best_us=best.time_us,
                    baseline_us=base.time_us,
                    cases=[c.name for c in self.cases],
                ),
            )
        except Exception:
            log.exception("could not record the best configuration")

    def _event(self, kind, trial: Trial | None, best: Trial | None) -> TrialEvent:
        base = self.trials[0] if self.trials else None
        return TrialEvent(
            kind=kind,
            trial=trial,
            best=best.config if best else None,
            best_us=best.time_us if best else None,
            baseline_us=base.time_us if base and base.ok else None,
            evaluations=len(self.trials),
            budget=self.budget,
            screened=len(self.screened_trials),
        )

    def result(self) -> TuneResult:
        timed = [(t.time_us, t) for t in self.trials if t.ok and t.time_us is not None]  # ok: timed
        best_us, best = min(timed, key=lambda pair: pair[0]) if timed else (None, None)
        base = self.trials[0] if self.trials else None
        baseline_us = base.time_us if base and base.ok else None
        speedup = (baseline_us / best_us) if best_us is not None and baseline_us else None
        per_case = _per_case_speedup(base, best) if baseline_us else {}
        return TuneResult(
            operator=self.op.model.operator,
            strategy=self.strategy_name,
            budget=self.budget,
            seed=self.seed,
            cases=[c.name for c in self.cases],
            space=self.space,
            baseline=self.space.baseline(),
            baseline_us=baseline_us,
            best=best.config if best else None,
            best_us=best_us,
            speedup=speedup,
            evaluations=len(self.trials),
            cached=sum(t.cached for t in self.trials),
            failed=[t for t in self.trials if not t.ok],
            trials=self.trials,
            screened=len(self.screened_trials),
            screened_trials=self.screened_trials,
            per_case_speedup=per_case,
            slower_cases=[name for name, x in per_case.items() if x < 1.0],
            stopped=self._stop.is_set(),
            uncertain=self._uncertain(best.config if best else None, speedup),
            inert=[k.name for k in self.inert or []],
            dtype_checks=[c.name for c in self.dtype_paths.required or []],
            dtype_broken=dict(self.dtype_paths.broken),
            executor=self.executor.name,
        )

    def _uncertain(self, best: Config | None, speedup: float | None) -> str | None:
        """Why the gain may be the model's error rather than the hardware's (None when it is larger than that error,
        or when no error has been measured)."""
        error = load_model_error()
        if error is None or best is None or speedup is None or speedup <= 1.0:
            return None
        baseline = self.space.baseline()
        # the roles the search gave the knobs moved (from the data flow); a divisor of the tiles moves a tile size
        moved = [k.role for k in self.space.knobs if best.get(k.name) != baseline.get(k.name)]
        roles: list[KnobRole] = ["tile" if r == "divisor" else cast(KnobRole, r) for r in moved]
        return error.gain_note(speedup, kinds_of_roles(roles))

    # ---- one evaluation ---------------------------------------------------------------------------------------
    def _evaluate(self, config: Config, *, is_baseline: bool = False) -> Trial:
        """Screen (a candidate) and measure one configuration. The trial's index is set when it is recorded."""
        try:
            return self._evaluate_unsafe(config, is_baseline)
        except Exception as exc:
            log.exception("evaluating %s failed", config)
            return Trial(
                index=0, config=config, error=f"internal error: {type(exc).__name__}: {exc}", failure="internal"
            )

    def _evaluate_unsafe(self, config: Config, is_baseline: bool) -> Trial:
        start = time.perf_counter()
        trial = Trial(index=0, config=config)
        reasons = [] if is_baseline else self._violations(config)  # (the shipped configuration is always run)
        if reasons:  # known not to work without running anything: screened like a failed screening
            trial.error, trial.screened = "; ".join(reasons), not is_baseline
            trial.failure = "ub_overflow" if reasons[0].startswith("UB") else "invalid"
            return trial
        src = source_hash({**self.base_texts, **config_texts(self.op, config)})
        if not is_baseline and (refused := self._screened_out(src, config)) is not None:
            refused.wall_s = time.perf_counter() - start
            return refused
        times: list[float] = []
        cached_all = True
        for case in self.cases:
            m, problem, kind, measured = self._run_case(case, config, src, is_baseline)
            cached_all = cached_all and not measured
            trial.per_case[case.name] = m.time_us
            if kind is not None:
                trial.error, trial.failure = f"{case.name}: {problem or 'no timing'}", kind
                break
            if m.time_us is not None:
                times.append(m.time_us)
        trial.cached = cached_all
        if trial.error is None and times:
            trial.ok = True
            trial.time_us = geomean(times)
        trial.wall_s = time.perf_counter() - start
        return trial

    def _run_case(
        self, case: Case, config: Config, src: str, is_baseline: bool
    ) -> tuple[Measurement, str | None, str | None, bool]:
        """(measurement, problem, failure kind, whether this process measured it) of `config` on one case: the
        cache's result, else one measured. The kind is None when the run is correct and timed."""
        where = (src, config, self._case_key(case), self.device.name, self.device.chip.name)
        m = self.cache.get(*where) if self.cache else None
        measured = m is None
        if m is None:
            m, measured = self._measure_once(case, config, is_baseline, where)
        overrun = self._new_overrun(case.name, m, is_baseline)
        problem = problem_of(m) or (overrun_message(overrun) if overrun else None)
        # (problem_of says "no timing" for a run without a time)
        return m, problem, failure_kind(m, overrun) if problem or m.time_us is None else None, measured

    def _check_run(self, case: Case, config: Config, is_baseline: bool) -> str | None:
        """What is wrong with `config` on a dtype path's check case (search/dtype_paths.py), None when it runs
        correct: run, not timed."""
        src = source_hash({**self.base_texts, **config_texts(self.op, config)})
        _, problem, kind, _ = self._run_case(case, config, src, is_baseline)
        return None if kind is None or problem == "no timing" else problem

    def _request(self, case: Case, config: Config) -> RunRequest:
        """What a screening or a measurement of `config` on `case` asks the device: the tune's seed and inputs (the
        user's arrays on the tuned cases only: a dtype path's check case draws its own)."""
        inputs = self.inputs if self.inputs and case.name in self._tuned else None
        return RunRequest(case, knobs=dict(config), seed=self.data_seed, inputs=inputs)

    def _case_key(self, case: Case) -> str:
        given = self._inputs_key if case.name in self._tuned else ""
        return f"{case.name}:{case.model_dump_json()}:seed={self.data_seed}{given}"

    def _screen(self, src: str, config: Config, case: Case) -> Screening:
        """The device's screening of `config` on `case`, made once per tune. A device that raises (it should not)
        has not screened anything out."""
        key = (src, tuple(sorted(config.items())), self._case_key(case))
        with self._lock:
            known = self._screens.get(key)
        if known is not None:
            return known
        # (kept under the screening's format: one kept before it reported the buffers is screened again)
        where = (src, config, key[2] + SCREEN_FORMAT, self.device.name, self.device.chip.name)
        kept = self.cache.get_screen(*where) if self.cache else None
        if kept is not None:
            s = kept
        else:
            try:
                s = self.device.screen(self.op, self._request(case, config))
                if self.cache:
                    self.cache.put_screen(*where, s)
            except Exception as exc:  # (not kept: the next tune tries again)
                log.exception("screening %s failed", config)
                s = Screening(ok=True, reason=f"not screened: {type(exc).__name__}: {exc}")
        with self._lock:
            self._screens[key] = s
        return s

    def _screen_config(self, config: Config, case: Case) -> Screening:
        return self._screen(source_hash({**self.base_texts, **config_texts(self.op, config)}), config, case)

    def _screen_baseline(self, baseline: Config) -> None:
        """Screen the shipped configuration on every case: what it fails there, a candidate may fail too. Called
        only when the shipped configuration ran correct: then the screening is wrong about this kernel at those
        sites. When it failed, the screening was right, and a candidate failing the same way is screened out (it
        would fail the same way when run, and cost the budget)."""
        src = source_hash({**self.base_texts, **config_texts(self.op, baseline)})
        for case in self.cases:
            s = self._screen(src, baseline, case)
            if not s.ok:
                self.baseline_screen.setdefault(case.name, set()).add((s.kind, s.file, s.line))

    def _screened_out(self, src: str, config: Config) -> Trial | None:
        """The screened trial of a candidate some case's screening refuses, or None when every case passes."""
        for case in self.cases:
            s = self._screen(src, config, case)
            if s.ok or (s.kind, s.file, s.line) in self.baseline_screen.get(case.name, set()):
                continue
            where = f" at {s.file}:{s.line}" if s.file and s.line else ""
            return Trial(
                index=0,
                config=config,
                screened=True,
                failure=s.kind or "screened",
                error=f"{case.name}: {s.kind}{where}: {s.reason or 'refused by the screening'}",
            )
        return None

    def _new_overrun(self, case_name: str, m: Measurement, is_baseline: bool) -> RunWarning | None:
        """The first memory overrun a candidate makes where the shipped configuration does not (None when it makes
        no new one); the baseline's own overruns are recorded instead."""
        found = overruns(m)
        with self._lock:
            if is_baseline:
                self.baseline_overruns[case_name] = set(found)
                return None
            known = self.baseline_overruns.get(case_name, set())
        return next((w for site, w in found.items() if site not in known), None)

    def _measure_once(
        self, case: Case, config: Config, is_baseline: bool, where: tuple[str, Config, str, str, str]
    ) -> tuple[Measurement, bool]:
        """Measure `config` on `case` and store the result, unless another process sharing the cache is measuring the
        same thing: then wait for its result (search/cache.py's claims). Also says whether this process measured."""
        if self.cache is None:
            return self._measure(case, config, is_baseline), True
        while not self.cache.claim(*where):
            if self._stop.wait(CLAIM_POLL_S):
                return Measurement(ok=False, case=case.name, error=RunError(kind="stopped", message="stopped")), False
            if (m := self.cache.get(*where)) is not None:
                return m, False
        try:
            if (m := self.cache.get(*where)) is not None:  # stored by the claim's last owner before it let go
                return m, False
            m = self._measure(case, config, is_baseline)
            if not (m.error and m.error.kind in TRANSIENT_ERROR_KINDS):  # the machine's doing: measured again next time
                self.cache.put(*where, m)
        finally:
            self.cache.release(*where)
        return m, True

    def _measure(self, case: Case, config: Config, is_baseline: bool) -> Measurement:
        m = self.executor.run(self.op, replace(self._request(case, config), keep_outputs=not self.has_golden))
        if self.has_golden:
            return m
        # Without a golden, the shipped configuration's outputs are the reference.
        outputs = m.produced_outputs()
        if m.ok and outputs is not None:
            with self._lock:
                if is_baseline or case.name not in self.baseline_outputs:
                    self.baseline_outputs.setdefault(case.name, outputs)
                reference = self.baseline_outputs[case.name]
            m.correct = all(
                np.allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), rtol=1e-3, atol=1e-3, equal_nan=True)
                for a, b in zip(outputs, reference, strict=True)
            )
        return m


def _faster(time_us: float, best: Trial | None) -> bool:
    return best is None or best.time_us is None or time_us < best.time_us


def _per_case_speedup(base: Trial | None, best: Trial | None) -> dict[str, float]:
    """Each case's shipped time over the best configuration's, for the cases both have a time for."""
    if base is None or best is None:
        return {}
    out = {}
    for name, before in base.per_case.items():
        after = best.per_case.get(name)
        if before is not None and after:
            out[name] = before / after
    return out


def _arrays_digest(arrays: dict[str, np.ndarray]) -> str:
    """A cache-key suffix for user-given input arrays: a result measured on other data must not be reused. Empty
    without arrays, so keys from random inputs stay what they were."""
    if not arrays:
        return ""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}:{a.shape}\0".encode())
        h.update(a.tobytes())
    return f":inputs={h.hexdigest()[:16]}"
