"""The experience bank's file: trajectories (a motif taken out of a kernel, measured slower and still correct),
versioned and validated, and the evidence each motif gets from them.

Two banks are read together: the one shipped with tilewise (`search/bank/shipped.json`, mined from the project's
examples by `tilewise bank mine --out search/bank/shipped.json`) and the user's (`$TILEWISE_CACHE/bank.json`), which
grows from `tilewise bank mine` on the user's operators and from the user's own wins in the editor. A file is
written whole to a temporary name and renamed over the old one, under a lock, so a killed process or two writers
never leave it half-written; a file that does not validate is reported in one line and read as empty.
"""

from __future__ import annotations

import difflib
import fcntl
import json
import math
import os
import statistics
import tempfile
from collections import Counter
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from tilewise.analysis.errors import TilewiseError
from tilewise.device.cache_dir import default_cache_dir

BANK_VERSION = 1
SHIPPED_PATH = Path(__file__).with_name("shipped.json")


class Profile(BaseModel):
    """A kernel's run, summed over its cases: the timing model's time and which pipe bounds it."""

    time_us: float
    bottleneck: str | None = None
    pipes: dict[str, float] = {}  # pipe -> busy ratio of the span (largest case)


class CaseTimes(BaseModel):
    case: str
    fast_us: float
    slow_us: float


class Features(BaseModel):
    """What retrieval compares: the kernel's bottleneck and pipe ratios, dtypes, the AscendC APIs it calls, how
    deep its loops nest, and its layout (project, kernel invocation, ATB)."""

    bottleneck: str | None = None
    pipe_ratios: dict[str, float] = {}
    dtypes: list[str] = []
    apis: list[str] = []
    loop_depth: int = 0
    layout: str = ""


class Trajectory(BaseModel):
    """One bad -> good pair: the slow kernel (the motif taken out) and the fast one, with the diff that puts the
    motif back in, the times of every case, and the fast kernel's features."""

    motif: str
    operator: str
    source: str  # where the kernel came from: an examples/ path, the user's operator folder
    description: str  # what the rewind did ("BUFFER_NUM 2 -> 1"), or the user's edit
    diff: str  # unified diff, slow -> fast
    slow: Profile
    fast: Profile
    cases: list[CaseTimes]
    speedup: float = Field(gt=0)  # geomean over cases of slow / fast: what putting the motif back in gained
    features: Features
    origin: Literal["mined", "user"] = "mined"


class BankFile(BaseModel):
    version: Literal[1] = 1  # BANK_VERSION
    device: str = "emulator"
    chip: str = ""
    trajectories: list[Trajectory] = []


@dataclass
class Evidence:
    """What a motif's trajectories say: how many, the median and range of the gains, on which bottlenecks."""

    motif: str
    trajectories: list[Trajectory]

    @property
    def count(self) -> int:
        return len(self.trajectories)

    @property
    def median(self) -> float:
        return statistics.median(t.speedup for t in self.trajectories) if self.trajectories else 1.0

    @property
    def low(self) -> float:
        return min((t.speedup for t in self.trajectories), default=1.0)

    @property
    def high(self) -> float:
        return max((t.speedup for t in self.trajectories), default=1.0)

    @property
    def bottlenecks(self) -> Counter[str]:
        return Counter(t.features.bottleneck or "unknown" for t in self.trajectories)

    def for_bottleneck(self, bottleneck: str | None) -> list[Trajectory]:
        return [t for t in self.trajectories if bottleneck and t.features.bottleneck == bottleneck]

    def best_example(self) -> Trajectory | None:
        """The example to show: the trajectory with the median gain and the shortest diff among those near it."""
        if not self.trajectories:
            return None
        mid = self.median
        return min(self.trajectories, key=lambda t: (abs(math.log(t.speedup / mid)) > 0.1, len(t.diff), t.operator))

    def summary(self) -> str:
        """`median 1.40x on 9 kernels (1.05x-2.10x)`."""
        if not self.trajectories:
            return "no evidence yet"
        kernels = len({(t.source, t.operator) for t in self.trajectories})
        span = f" ({self.low:.2f}x-{self.high:.2f}x)" if self.count > 1 else ""
        return f"median {self.median:.2f}x on {kernels} rewound kernel{'s' if kernels != 1 else ''}{span}"


def user_bank_path() -> Path:
    """`$TILEWISE_CACHE/bank.json`, beside the results cache."""
    return default_cache_dir() / "bank.json"


def load_bank(path: Path, missing_ok: bool = True) -> BankFile:
    """Read and validate a bank file. A missing file is an empty bank (when `missing_ok`); an invalid one raises a
    TilewiseError naming the file and what to do."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if missing_ok:
            return BankFile()
        raise TilewiseError(str(path), 0, "no bank file here; mine one with `tilewise bank mine --out FILE`") from None
    try:
        return BankFile.model_validate_json(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        raise TilewiseError(
            str(path), 0, f"bank file is invalid ({where}: {first['msg']}); delete it or mine it again"
        ) from None


def shipped_bank_path() -> Path | None:
    """The shipped bank, unless `TILEWISE_SHIPPED_BANK` names another file (or is empty: none, so that only the
    user's own evidence counts, as the editor's tests need)."""
    chosen = os.environ.get("TILEWISE_SHIPPED_BANK")
    if chosen is None:
        return SHIPPED_PATH
    return Path(chosen) if chosen.strip() else None


_DEFAULT = Path("<shipped>")


def load_banks(user: Path | None = None, shipped: Path | None = _DEFAULT) -> tuple[BankFile, list[str]]:
    """The shipped bank (by default `shipped_bank_path()`) and the user's, merged; problems with either come back
    as one line each (the other bank still counts)."""
    merged = BankFile()
    problems: list[str] = []
    shipped = shipped_bank_path() if shipped == _DEFAULT else shipped
    for path in [p for p in (shipped, user if user is not None else user_bank_path()) if p is not None]:
        try:
            bank = load_bank(path)
        except TilewiseError as exc:
            problems.append(exc.one_line())
            continue
        merged.trajectories.extend(bank.trajectories)
        merged.chip = merged.chip or bank.chip
    return merged, problems


def evidence(bank: BankFile) -> dict[str, Evidence]:
    by_motif: dict[str, list[Trajectory]] = {}
    for t in bank.trajectories:
        by_motif.setdefault(t.motif, []).append(t)
    return {m: Evidence(m, ts) for m, ts in by_motif.items()}


@contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(path.suffix + ".lock"), "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _write(path: Path, bank: BankFile) -> None:
    data = json.dumps(bank.model_dump(mode="json"), indent=1, sort_keys=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a bank is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _key(t: Trajectory) -> tuple[str, str, str, str]:
    return (t.motif, t.source, t.operator, t.description)


def save_bank(path: Path, trajectories: Iterable[Trajectory], *, device: str, chip: str, replace: bool = False) -> int:
    """Add trajectories to the bank at `path` (a trajectory of the same motif, kernel and change replaces the old
    one), or with `replace` write exactly these. Returns how many the file holds."""
    with _locked(path):
        bank = BankFile(device=device, chip=chip) if replace else _readable(path, device, chip)
        kept = {_key(t): t for t in bank.trajectories}
        for t in trajectories:
            kept[_key(t)] = t
        bank.trajectories = sorted(kept.values(), key=lambda t: (t.motif, t.source, t.operator, t.description))
        _write(path, bank)
        return len(bank.trajectories)


def _readable(path: Path, device: str, chip: str) -> BankFile:
    """The bank to add to: the file as it is, or a fresh one when it is missing or invalid (the invalid file is
    kept beside it as `.bad`, so nothing the user had is lost)."""
    try:
        return load_bank(path)
    except TilewiseError:
        path.replace(path.with_suffix(path.suffix + ".bad"))
        return BankFile(device=device, chip=chip)


def unified_diff(before: dict[str, str], after: dict[str, str], root: str = "") -> str:
    """The diff from `before` to `after` texts, with paths relative to `root`."""
    lines: list[str] = []
    for path in sorted(set(before) | set(after)):
        a, b = before.get(path, ""), after.get(path, "")
        if a == b:
            continue
        name = os.path.relpath(path, root) if root else path
        lines.extend(difflib.unified_diff(a.splitlines(True), b.splitlines(True), f"a/{name}", f"b/{name}", n=2))
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
