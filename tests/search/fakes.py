"""A fake `device.protocol.Device` for the search tests: its answer is a function of the knob values the caller
passes, so the tuner's and the fix verifier's own logic is tested without a build (no g++) and without timing
noise. It records every run, so a test sees what the caller paid for."""

from __future__ import annotations

import threading
from collections.abc import Callable

import numpy as np

from analysis.chip import Chip, load_chip
from analysis.manifest import Case
from analysis.operator import Operator
from device.protocol import Measurement


class FakeDevice:
    """Answers `answer(knobs)` for every run (the case's name filled in); `chip` is the default chip unless given."""

    name = "fake"

    def __init__(self, answer: Callable[[dict[str, int]], Measurement], chip: Chip | None = None) -> None:
        self.chip: Chip = chip or load_chip(None)
        self.answer = answer
        self.runs: list[dict[str, int]] = []
        self._lock = threading.Lock()  # the tuner may run several workers

    def run(
        self,
        op: Operator,
        case: Case,
        *,
        knobs: dict[str, int] | None = None,
        seed: int = 0,
        golden: str | None = None,
        rtol: float | None = None,
        atol: float | None = None,
        inputs: dict[str, np.ndarray] | None = None,
        texts: dict[str, str] | None = None,
        trace_path: str | None = None,
        keep_outputs: bool = False,
        sites: bool = False,
    ) -> Measurement:
        config = dict(knobs or {})
        with self._lock:
            self.runs.append(config)
        m = self.answer(config)
        m.case = case.name
        return m
