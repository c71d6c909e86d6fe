"""The tuning loop: propose configurations with a strategy, measure them on a device, keep the fastest correct one.

The objective is the geometric mean of the simulated time over the cases; a configuration counts only if every case
builds, runs clean and is correct (against the golden, or without one against the shipped configuration's outputs).
`Tuner.events()` yields one event per trial, so the CLI can draw progress and the language server can stream it.
Evaluations run in parallel (subprocesses do the work); every result goes to the persistent cache as it arrives.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Literal

import numpy as np
from pydantic import BaseModel

from analysis.manifest import Case
from analysis.model_error import kinds_of_roles, load_model_error
from analysis.operator import Operator
from device.protocol import MEMORY_WARNING_KINDS, Device, Measurement, RunWarning
from search.cache import BestConfig, ResultsCache, source_hash
from search.space import Config, SearchSpace, build_space, config_texts, violations
from search.strategies import STRATEGIES


class Trial(BaseModel):
    index: int
    config: Config
    time_us: float | None = None
    ok: bool = False
    error: str | None = None
    cached: bool = False
    per_case: dict[str, float | None] = {}
    wall_s: float = 0.0


class TrialEvent(BaseModel):
    kind: Literal["trial", "improved", "done", "stopped"]
    trial: Trial | None = None
    best: Config | None = None
    best_us: float | None = None
    baseline_us: float | None = None
    evaluations: int = 0
    budget: int = 0


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
    failed: list[Trial]
    trials: list[Trial]
    stopped: bool = False
    # Set when the gain is within the timing model's typical error for the kinds of change the best configuration
    # makes (analysis/model_error.py): a prediction that needs hardware to confirm.
    uncertain: str | None = None


log = logging.getLogger(__name__)


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
    ):
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy '{strategy}'; use one of {', '.join(STRATEGIES)}")
        self.op, self.device, self.cases = op, device, cases
        self.budget, self.seed, self.cache, self.workers = budget, seed, cache, max(1, workers)
        self.data_seed = data_seed  # inputs are drawn from this seed: the same for every strategy, so results share
        self.inputs = inputs or {}  # user-given arrays (`--input`), fed to every evaluation instead of random ones
        self._inputs_key = _arrays_digest(self.inputs)
        self.space = space or build_space(op, device.chip)
        self.strategy = STRATEGIES[strategy](self.space, seed, self._feasible)
        self.strategy_name = strategy
        self.trials: list[Trial] = []
        self.baseline_outputs: dict[str, list[np.ndarray]] = {}
        # Memory overruns the shipped configuration itself makes, per case: a candidate may make those (the kernel
        # does whatever the tiling), never new ones, however right its outputs happen to be on this data.
        self.baseline_overruns: dict[str, set[tuple[str, str | None, int | None]]] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self.has_golden = bool(op.manifest and op.manifest.golden)
        self.base_texts = {p: sf.text for p, sf in op.sources.items()}

    # ---- control ----------------------------------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()

    def _feasible(self, config: Config) -> bool:
        return not violations(self.op, config, self.device.chip)

    # ---- the loop ---------------------------------------------------------------------------------------------
    def events(self) -> Iterator[TrialEvent]:
        best: Trial | None = None
        baseline = self.space.baseline()
        first = self._evaluate(0, baseline)  # the shipped configuration: the reference for speed and for outputs
        self.trials.append(first)
        self.strategy.seed(baseline, first.time_us if first.ok else None)  # the search starts from what ships
        if first.ok:
            best = first
        yield self._event("improved" if first.ok else "trial", first, best)
        if not self.space.knobs:
            yield self._event("done", None, best)
            return
        pending: dict[Future, Config] = {}
        index = 1
        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            while not self._stop.is_set():
                while len(pending) < self.workers and index < self.budget and not self._stop.is_set():
                    config = self.strategy.ask()
                    if config is None:
                        break
                    pending[pool.submit(self._evaluate, index, config)] = config
                    index += 1
                if not pending:
                    break
                done, _ = wait(list(pending), timeout=0.2, return_when=FIRST_COMPLETED)
                for fut in done:
                    config = pending.pop(fut)
                    trial = fut.result()
                    self.trials.append(trial)
                    self.strategy.tell(config, trial.time_us if trial.ok else None)
                    improved = trial.ok and (best is None or trial.time_us < best.time_us)
                    if improved:
                        best = trial
                        self._remember(best)
                    yield self._event("improved" if improved else "trial", trial, best)
            if self._stop.is_set():
                for fut in pending:
                    fut.cancel()
        yield self._event("stopped" if self._stop.is_set() else "done", None, best)

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
        )

    def result(self) -> TuneResult:
        timed = [(t.time_us, t) for t in self.trials if t.ok and t.time_us is not None]  # ok: timed
        best_us, best = min(timed, key=lambda pair: pair[0]) if timed else (None, None)
        base = self.trials[0] if self.trials else None
        baseline_us = base.time_us if base and base.ok else None
        speedup = (baseline_us / best_us) if best_us is not None and baseline_us else None
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
            stopped=self._stop.is_set(),
            uncertain=self._uncertain(best.config if best else None, speedup),
        )

    def _uncertain(self, best: Config | None, speedup: float | None) -> str | None:
        """Why the gain may be the model's error rather than the hardware's (None when it is larger than that error,
        or when no error has been measured)."""
        error = load_model_error()
        if error is None or best is None or speedup is None or speedup <= 1.0:
            return None
        baseline = self.space.baseline()
        moved = [self.op.model.knob(k.name) for k in self.space.knobs if best.get(k.name) != baseline.get(k.name)]
        roles = [knob.role for knob in moved if knob is not None]
        return error.gain_note(speedup, kinds_of_roles(roles))

    # ---- one evaluation ---------------------------------------------------------------------------------------
    def _evaluate(self, index: int, config: Config) -> Trial:
        try:
            return self._evaluate_unsafe(index, config)
        except Exception as exc:
            log.exception("evaluating %s failed", config)
            return Trial(index=index, config=config, error=f"internal error: {type(exc).__name__}: {exc}")

    def _evaluate_unsafe(self, index: int, config: Config) -> Trial:
        start = time.perf_counter()
        trial = Trial(index=index, config=config)
        reasons = violations(self.op, config, self.device.chip)
        if reasons:
            trial.error = "; ".join(reasons)
            return trial
        src = source_hash({**self.base_texts, **config_texts(self.op, config)})
        times: list[float] = []
        cached_all = True
        for case in self.cases:
            case_key = f"{case.name}:{case.model_dump_json()}:seed={self.data_seed}{self._inputs_key}"
            m = self.cache.get(src, config, case_key, self.device.name, self.device.chip.name) if self.cache else None
            if m is None:
                cached_all = False
                m = self._measure(case, config, index == 0)
                if self.cache and not (m.error and m.error.kind == "timeout"):  # a timeout may be the machine's load
                    self.cache.put(src, config, case_key, self.device.name, self.device.chip.name, m)
            trial.per_case[case.name] = m.time_us
            problem = _problem(m) or self._new_overrun(case.name, m, index == 0)
            if problem or m.time_us is None:  # (_problem says "no timing" for a run without a time)
                trial.error = f"{case.name}: {problem or 'no timing'}"
                break
            times.append(m.time_us)
        trial.cached = cached_all
        if trial.error is None and times:
            trial.ok = True
            trial.time_us = geomean(times)
        trial.wall_s = time.perf_counter() - start
        return trial

    def _new_overrun(self, case_name: str, m: Measurement, is_baseline: bool) -> str | None:
        """Why a candidate is refused for touching memory outside its buffers where the shipped configuration does
        not (None when it makes no new overrun); the baseline's own overruns are recorded instead."""
        found = _overruns(m)
        with self._lock:
            if is_baseline:
                self.baseline_overruns[case_name] = set(found)
                return None
            known = self.baseline_overruns.get(case_name, set())
        new = [w for site, w in found.items() if site not in known]
        if not new:
            return None
        w = new[0]
        return (
            f"{w.kind} at {w.file}:{w.line}: {w.message} (the shipped configuration does not overrun there, "
            f"so this tiling is refused even where its outputs match)"
        )

    def _measure(self, case: Case, config: Config, is_baseline: bool) -> Measurement:
        if self.has_golden:
            return self.device.run(self.op, case, knobs=config, seed=self.data_seed, inputs=self.inputs or None)
        # Without a golden, the shipped configuration's outputs are the reference.
        m = self.device.run(
            self.op, case, knobs=config, seed=self.data_seed, inputs=self.inputs or None, keep_outputs=True
        )
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


def _overruns(m: Measurement) -> dict[tuple[str, str | None, int | None], RunWarning]:
    return {(w.kind, w.file, w.line): w for w in m.warnings if w.kind in MEMORY_WARNING_KINDS}


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


def _problem(m: Measurement) -> str | None:
    if m.error is not None:
        where = f" at {m.error.file}:{m.error.line}" if m.error.file and m.error.line else ""
        return f"{m.error.kind}{where}: {m.error.message}"
    if not m.ok:
        return "did not run"
    if m.correct is False:
        bad = next((o for o in m.outputs if not o.ok), None)
        # A sanitizer warning (an unaligned copy's dropped tail, a race) is usually why: say it with the reason.
        warned = "".join(f"; {w.kind} at {w.file}:{w.line}: {w.message}" for w in m.warnings[:3])
        return f"wrong output{f' ({bad.name}: {bad.mismatches} mismatches)' if bad else ''}{warned}"
    if m.time_us is None:
        return "no timing"
    return None
