"""The persistent results cache: SQLite, keyed by source hash, knob values, case, device and chip.

Each measurement is one committed row (WAL journal), so a process killed mid-tune leaves every finished result in
place and nothing half-written. A second tune of the same operator pays nothing for what it already measured.

Several processes may share one cache (the CLI and the editor, two tunes): SQLite's file locks order their writes,
and a writer waits up to 30 s for another's transaction. A row is keyed by what was measured, so the same
measurement stored twice is still one row. The tuner also avoids measuring twice: before it measures, it claims the
measurement (`claim`, one row per key naming this host and process); a tune that finds another live process's claim
waits for that process's result instead (search/tuner.py). A claim whose owner died (kill -9) or that is older than
CLAIM_STALE_S is taken over. A failure that says more about the machine than about the configuration (a timeout, a
process killed from outside: device.protocol.TRANSIENT_ERROR_KINDS) is not stored by the tuner.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import threading
from pathlib import Path

from pydantic import BaseModel

from tilewise.analysis.testhooks import kill_point
from tilewise.device.cache_dir import default_cache_dir
from tilewise.device.protocol import Measurement, Screening

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    source_hash TEXT NOT NULL,
    config TEXT NOT NULL,
    case_key TEXT NOT NULL,
    device TEXT NOT NULL,
    chip TEXT NOT NULL,
    measurement TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')),
    PRIMARY KEY (source_hash, config, case_key, device, chip)
);
CREATE TABLE IF NOT EXISTS screens (
    source_hash TEXT NOT NULL,
    config TEXT NOT NULL,
    case_key TEXT NOT NULL,
    device TEXT NOT NULL,
    chip TEXT NOT NULL,
    screening TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')),
    PRIMARY KEY (source_hash, config, case_key, device, chip)
);
CREATE TABLE IF NOT EXISTS best_configs (
    source_hash TEXT NOT NULL,
    device TEXT NOT NULL,
    chip TEXT NOT NULL,
    cases TEXT NOT NULL,
    config TEXT NOT NULL,
    best_us REAL NOT NULL,
    baseline_us REAL NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')),
    PRIMARY KEY (source_hash, device, chip, cases)
);
CREATE TABLE IF NOT EXISTS claims (
    source_hash TEXT NOT NULL,
    config TEXT NOT NULL,
    case_key TEXT NOT NULL,
    device TEXT NOT NULL,
    chip TEXT NOT NULL,
    owner TEXT NOT NULL,
    created REAL NOT NULL DEFAULT (julianday('now')),
    PRIMARY KEY (source_hash, config, case_key, device, chip)
)
"""

# A claim older than this is taken over even when its owner still runs (a pid reused, a measurement that hangs): a
# build and a run that time out take less.
CLAIM_STALE_S = 900.0


def default_results_path() -> Path:
    """Beside the emulator's build cache: `$TILEWISE_CACHE/results.sqlite` (CLI, language server and replay)."""
    return default_cache_dir() / "results.sqlite"


def source_hash(texts: dict[str, str]) -> str:
    h = hashlib.sha256()
    for path in sorted(texts):
        h.update(path.encode())
        h.update(b"\0")
        h.update(texts[path].encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def config_key(config: dict[str, int]) -> str:
    return json.dumps(dict(sorted(config.items())), separators=(",", ":"))


class BestConfig(BaseModel):
    """The best configuration a tune found for one source (the sources before any knob was changed)."""

    config: dict[str, int]
    best_us: float
    baseline_us: float
    cases: list[str]


class ResultsCache:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def get(self, src: str, config: dict[str, int], case_key: str, device: str, chip: str) -> Measurement | None:
        with self._lock:
            row = self._db.execute(
                "SELECT measurement FROM results WHERE source_hash=? AND config=? AND case_key=? AND device=? "
                "AND chip=?",
                (src, config_key(config), case_key, device, chip),
            ).fetchone()
        return Measurement.model_validate_json(row[0]) if row else None

    def put(self, src: str, config: dict[str, int], case_key: str, device: str, chip: str, m: Measurement) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO results (source_hash, config, case_key, device, chip, measurement) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (src, config_key(config), case_key, device, chip, m.model_dump_json()),
            )
        kill_point("stored")  # (the crash tests' kill point: analysis/testhooks.py)

    def claim(self, src: str, config: dict[str, int], case_key: str, device: str, chip: str) -> bool:
        """Claim a measurement for this process: True when it is ours to make (no one else's live claim stands),
        False when another process is making it now."""
        key = (src, config_key(config), case_key, device, chip)
        me = _owner()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                row = self._db.execute(
                    "SELECT owner, (julianday('now') - created) * 86400 FROM claims WHERE source_hash=? AND config=? "
                    "AND case_key=? AND device=? AND chip=?",
                    key,
                ).fetchone()
                if row is not None and row[0] != me and row[1] < CLAIM_STALE_S and _alive(row[0]):
                    self._db.execute("COMMIT")
                    return False
                self._db.execute(
                    "INSERT OR REPLACE INTO claims (source_hash, config, case_key, device, chip, owner) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (*key, me),
                )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return True

    def release(self, src: str, config: dict[str, int], case_key: str, device: str, chip: str) -> None:
        """Give up this process's claim on a measurement (made and stored, or failed)."""
        with self._lock:
            self._db.execute(
                "DELETE FROM claims WHERE source_hash=? AND config=? AND case_key=? AND device=? AND chip=? "
                "AND owner=?",
                (src, config_key(config), case_key, device, chip, _owner()),
            )

    def get_screen(self, src: str, config: dict[str, int], case_key: str, device: str, chip: str) -> Screening | None:
        """A screening kept from an earlier tune of the same sources (screenings are cheap, but a search replayed
        from the cache would otherwise pay them all again)."""
        with self._lock:
            row = self._db.execute(
                "SELECT screening FROM screens WHERE source_hash=? AND config=? AND case_key=? AND device=? AND chip=?",
                (src, config_key(config), case_key, device, chip),
            ).fetchone()
        return Screening.model_validate_json(row[0]) if row else None

    def put_screen(self, src: str, config: dict[str, int], case_key: str, device: str, chip: str, s: Screening) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO screens (source_hash, config, case_key, device, chip, screening) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (src, config_key(config), case_key, device, chip, s.model_dump_json()),
            )

    def put_best(self, src: str, device: str, chip: str, best: BestConfig) -> None:
        """Kept per tuned source, so an editor reopened on the same sources shows the tune's result again."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO best_configs (source_hash, device, chip, cases, config, best_us, baseline_us) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    src,
                    device,
                    chip,
                    json.dumps(sorted(best.cases)),
                    config_key(best.config),
                    best.best_us,
                    best.baseline_us,
                ),
            )

    def best(self, src: str, device: str, chip: str) -> BestConfig | None:
        """The most recent tune's best configuration for these sources, whatever cases it ran."""
        with self._lock:
            row = self._db.execute(
                "SELECT cases, config, best_us, baseline_us FROM best_configs WHERE source_hash=? AND device=? "
                "AND chip=? ORDER BY created DESC LIMIT 1",
                (src, device, chip),
            ).fetchone()
        if row is None:
            return None
        return BestConfig(cases=json.loads(row[0]), config=json.loads(row[1]), best_us=row[2], baseline_us=row[3])

    def count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _alive(owner: str) -> bool:
    """Whether a claim's owner process still runs (one on another host is taken to: only its age can end it)."""
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
