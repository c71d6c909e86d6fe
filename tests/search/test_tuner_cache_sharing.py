"""The results cache shared by several processes, on a fake device (no g++): a failure that is the machine's (a
timeout, a run or a compiler killed from outside) is never stored, a measurement another live process has claimed is
not this one's to make, and a claim whose owner died is taken over. (Real processes tuning at once and killed
mid-tune: tests/emulator/test_shared_cache.py and test_crash_safety.py.)"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys

import pytest
from fakes import FakeDevice
from opgen import tuned_operator

from tilewise.analysis.operator import load_operator
from tilewise.device.protocol import TRANSIENT_ERROR_KINDS, Measurement, RunError
from tilewise.search.cache import ResultsCache
from tilewise.search.tuner import Tuner


@pytest.fixture(scope="module")
def op(tmp_path_factory):
    return load_operator(tuned_operator(tmp_path_factory.mktemp("tune") / "scale"))


@pytest.mark.parametrize("kind", sorted(TRANSIENT_ERROR_KINDS))
def test_the_machines_failures_are_not_kept(op, tmp_path, kind):
    cache = ResultsCache(tmp_path / "results.sqlite")
    failing = FakeDevice(lambda knobs: Measurement(ok=False, error=RunError(kind=kind, message="the machine")))
    tuner = Tuner(op, failing, op.manifest.cases, strategy="grid", budget=2, cache=cache)
    list(tuner.events())
    assert [t.failure for t in tuner.result().trials] == [kind, kind] and cache.count() == 0
    timed = FakeDevice(lambda knobs: Measurement(ok=True, correct=True, time_us=10.0))
    again = Tuner(op, timed, op.manifest.cases, strategy="grid", budget=2, cache=cache)
    list(again.events())
    assert len(timed.runs) == 2 and cache.count() == 2  # measured again, and kept this time


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_live_processs_claim_stands_and_a_dead_ones_is_taken_over(tmp_path):
    cache = ResultsCache(tmp_path / "results.sqlite")
    key = ("src", {"TILE": 8}, "case", "fake", "chip")
    db = cache._db
    insert = (
        "INSERT OR REPLACE INTO claims (source_hash, config, case_key, device, chip, owner) VALUES (?, ?, ?, ?, ?, ?)"
    )
    db.execute(insert, ("src", '{"TILE":8}', "case", "fake", "chip", f"{socket.gethostname()}:{os.getppid()}"))
    assert cache.claim(*key) is False  # our parent runs: it is measuring this
    db.execute(insert, ("src", '{"TILE":8}', "case", "fake", "chip", f"{socket.gethostname()}:{dead_pid()}"))
    assert cache.claim(*key) is True  # killed mid-measurement: the claim is ours now
    cache.release(*key)
    assert db.execute("SELECT COUNT(*) FROM claims").fetchone()[0] == 0


def test_a_tune_waits_for_the_result_of_a_measurement_another_process_claimed(op, tmp_path, monkeypatch):
    """The other process is played by a claim in our parent's name, and its result arrives as the tune waits."""
    cache = ResultsCache(tmp_path / "results.sqlite")
    timed = FakeDevice(lambda knobs: Measurement(ok=True, correct=True, time_us=10.0))
    tuner = Tuner(op, timed, op.manifest.cases, strategy="grid", budget=1, cache=cache)
    where = None
    real_claim = cache.claim

    def claim(*key):  # the first claim meets the other process's, which stores its result meanwhile
        nonlocal where
        if where is None:
            where = key
            cache.put(*key, Measurement(ok=True, correct=True, time_us=7.0, case=key[2]))
            return False
        return real_claim(*key)

    monkeypatch.setattr(cache, "claim", claim)
    list(tuner.events())
    (trial,) = tuner.result().trials
    assert trial.ok and trial.cached and trial.per_case == {"small": 7.0} and timed.runs == []


def test_a_cache_written_before_is_still_hit(op, tmp_path):
    """The results cache's key, written out as a cache made before requests were one value (issue 31) holds it: the
    sources' hash, the configuration's JSON, `case:<case dump>:seed=N`, the device and the chip. A tune over such a
    cache measures nothing it holds."""
    cache = ResultsCache(tmp_path / "results.sqlite")
    device = FakeDevice(lambda knobs: Measurement(ok=True, correct=True, time_us=99.0))
    tuner = Tuner(op, device, op.manifest.cases, strategy="grid", budget=1, cache=cache, data_seed=3)
    baseline = tuner.space.baseline()
    h = hashlib.sha256()
    for path in sorted(op.sources):  # the shipped configuration's sources are the files as they are
        h.update(path.encode() + b"\0" + op.sources[path].text.encode() + b"\0")
    stored = Measurement(ok=True, correct=True, time_us=7.0)
    for case in op.manifest.cases:
        cache._db.execute(
            "INSERT INTO results (source_hash, config, case_key, device, chip, measurement) VALUES (?, ?, ?, ?, ?, ?)",
            (
                h.hexdigest()[:24],
                json.dumps(dict(sorted(baseline.items())), separators=(",", ":")),
                f"{case.name}:{case.model_dump_json()}:seed=3",
                "fake",
                device.chip.name,
                stored.model_dump_json(),
            ),
        )
    list(tuner.events())
    (trial,) = tuner.result().trials
    assert device.runs == [] and trial.cached and trial.time_us == pytest.approx(7.0)
