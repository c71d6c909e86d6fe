"""A fake `device.protocol.Device` for the search tests: its answer is a function of the knob values the caller
passes, so the tuner's and the fix verifier's own logic is tested without a build (no g++) and without timing
noise. It records every run and every screening, so a test sees what the caller paid for. `jitter` makes each run
sleep a random while first, so that parallel results arrive in an order nobody chose."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable

from tilewise.analysis.chip import Chip, load_chip
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import Measurement, RunRequest, Screening


class FakeDevice:
    """Answers `answer(knobs)` for every run (`answer(knobs, case_name)` with `by_case`) and `screen(knobs,
    case_name)` for every screening (ok when not given), the case's name filled in; `chip` is the default chip
    unless given."""

    name = "fake"

    def __init__(
        self,
        answer: Callable[..., Measurement],
        chip: Chip | None = None,
        *,
        by_case: bool = False,
        screen: Callable[[dict[str, int], str], Screening] | None = None,
        jitter: float = 0.0,
    ) -> None:
        self.chip: Chip = chip or load_chip(None)
        self.answer = answer
        self.by_case = by_case
        self.screener = screen
        self.jitter = jitter
        self.runs: list[dict[str, int]] = []
        self.screenings: list[dict[str, int]] = []
        self.requests: list[RunRequest] = []  # every run's whole request, for tests of what a caller asked
        self._lock = threading.Lock()  # the tuner may run several workers
        self._random = random.Random()  # unseeded on purpose: the arrival order is not the test's to choose

    def screen(self, op: Operator, request: RunRequest) -> Screening:
        config = dict(request.knobs)
        with self._lock:
            self.screenings.append(config)
        return self.screener(config, request.case.name) if self.screener else Screening(ok=True)

    def run(self, op: Operator, request: RunRequest) -> Measurement:
        config = dict(request.knobs)
        if self.jitter:
            with self._lock:
                pause = self._random.uniform(0.0, self.jitter)
            time.sleep(pause)
        with self._lock:
            self.runs.append(config)
            self.requests.append(request)
        name = request.case.name
        m = self.answer(config, name) if self.by_case else self.answer(config)
        m.case = name
        return m
