"""Recorded measurements, as Kernel Tuner's simulation mode replays a cache of measured times: a test that checks
logic over the emulator's times (calibrate's fit, its command) rather than the emulator itself replays times that a
real run recorded once, in a small JSON file under tests/recorded/, instead of building and running every kernel.

A run is named by what decides its time on the emulator: the chip's constants (rounded to 10 significant digits,
so that the last bit of a fitted float does not matter), the operator's folder name, the case and the knobs.
A replayed run the file does not hold fails the test with the command that records the file again: the live test
that made it (marked slow), run with TILEWISE_RECORD=1, e.g.

    TILEWISE_RECORD=1 .venv/bin/python -m pytest -p no:cacheprovider tests/search/test_calibrate.py -m slow

Record again whenever the timing model, the micro-kernels or the fit's steps change; the live test still runs the
emulator itself in the whole suite (`scripts/test.sh --all`).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest

from tilewise.analysis.chip import Chip, load_chip
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import Device, Measurement, RunError, RunRequest, Screening

HERE = Path(__file__).resolve().parent / "recorded"


def recording_wanted() -> bool:
    """Whether this run records (TILEWISE_RECORD=1) instead of only checking."""
    return os.environ.get("TILEWISE_RECORD", "") not in ("", "0")


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return float(f"{value:.10g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def chip_key(chip: Chip) -> str:
    """The chip's constants, not its name or notes: two chips with the same figures time every run alike."""
    data = _rounded(chip.model_dump(mode="json", exclude={"name", "sources"}))
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def run_key(chip: Chip, op: Operator, request: RunRequest) -> str:
    knobs = json.dumps(dict(sorted(request.knobs.items())))
    return f"{chip_key(chip)} {Path(op.model.root).name} {request.case.name} seed={request.seed} {knobs}"


class Recording:
    """One file of recorded times: key -> microseconds (or the one-line reason the run failed)."""

    def __init__(self, name: str):
        self.path = HERE / f"{name}.json"
        self.times: dict[str, float | str] = json.loads(self.path.read_text()) if self.path.exists() else {}
        self._lock = threading.Lock()

    def put(self, key: str, value: float | str) -> None:
        with self._lock:
            self.times[key] = value

    def save(self) -> None:
        HERE.mkdir(exist_ok=True)
        self.path.write_text(json.dumps(dict(sorted(self.times.items())), indent=0) + "\n")


class RecordingDevice:
    """A real device whose every run's time goes into a recording."""

    def __init__(self, inner: Device, recording: Recording):
        self.inner, self.recording = inner, recording
        self.name, self.chip = inner.name, inner.chip

    def run(self, op: Operator, request: RunRequest) -> Measurement:
        m = self.inner.run(op, request)
        ok = m.ok and m.error is None and m.correct is not False and m.time_us is not None
        why = f"{m.error.kind}: {m.error.message}" if m.error else "wrong outputs"
        self.recording.put(run_key(self.chip, op, request), m.time_us if ok and m.time_us is not None else why)
        return m

    def screen(self, op: Operator, request: RunRequest) -> Screening:
        return self.inner.screen(op, request)


class ReplayDevice:
    """The emulator as a recording saw it: each run answers the recorded time, instantly; a run it does not hold
    fails the test, naming how to record again."""

    def __init__(self, chip: Chip | str | None, recording: Recording, name: str = "emulator"):
        self.chip = chip if isinstance(chip, Chip) else load_chip(chip)
        self.recording, self.name = recording, name

    def run(self, op: Operator, request: RunRequest) -> Measurement:
        key = run_key(self.chip, op, request)
        if key not in self.recording.times:
            pytest.fail(
                f"{self.recording.path.name} holds no run '{key}': the timing model, the micro-kernels or the fit "
                "changed; record it again (tests/recorded.py says how)",
                pytrace=False,
            )
        value = self.recording.times[key]
        if isinstance(value, str):
            kind, _, message = value.partition(": ")
            return Measurement(
                ok=False, case=request.case.name, chip=self.chip.name, error=RunError(kind=kind, message=message)
            )
        return Measurement(ok=True, correct=True, case=request.case.name, chip=self.chip.name, time_us=value)

    def screen(self, op: Operator, request: RunRequest) -> Screening:  # pragma: no cover - calibration never screens
        raise NotImplementedError
