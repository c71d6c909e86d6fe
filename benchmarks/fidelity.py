"""How far the timing model's predictions are from published hardware measurements.

Each case in `benchmarks/fidelity/cases/<id>/` is a slow/fast pair of operators written for this project from a
published description (a best-practice guide's case study, a report with msprof figures), with the published
before/after times, or their ratio, and where they come from, in `case.toml`:

    [case]
    kind = "reduction"            # the kind of change: the model's error is reported per kind
    source = "Ascend C best practices, section ..., <URL or repo@commit:path>"
    hardware = "Atlas A2 training series (910B)"
    conditions = "fp16, [32, 4096], one core"
    summary = "WholeReduceSum per row -> BlockReduceSum then WholeReduceSum"
    [published]                   # either both times (us or cycles), or the speedup alone
    slow_us = 10.3
    fast_us = 6.7
    [run]
    case = "base"                 # the manifest case both operators run (default: their first)
    measure = "total"             # or "kernel": leave the launch out (a time taken inside the kernel)
    scale = 1.0                   # the share of the published work the operators do (see RunInfo)

and the two operators in `slow/` and `fast/`, each with its own `tilewise.toml` (cases and golden). The script
runs both on the emulator, checks their outputs, and prints per case the predicted and published speedups and
times, then per kind and overall the figure `exp(mean |ln(predicted speedup / published speedup)|)`: 1.0 is a
perfect model, 1.8 means predictions are typically off by a factor of 1.8.

    python benchmarks/fidelity.py [--only ID] [--chip 910B2] [--json OUT] [--write-error]

`--write-error` stores the residuals in analysis/data/model_error.json, from which `tilewise run` gives a range
around its time and `tune` says when a gain is within the model's typical error (analysis/model_error.py).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from tilewise.device.protocol import RunRequest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "benchmarks" / "fidelity" / "cases"
ERROR_FILE = ROOT / "src" / "tilewise" / "analysis" / "data" / "model_error.json"


class Published(BaseModel):
    """What the source measured. Times in microseconds or in cycles (a pair in the same unit), or the speedup."""

    model_config = ConfigDict(extra="forbid")

    slow_us: float | None = Field(None, gt=0)
    fast_us: float | None = Field(None, gt=0)
    slow_cycles: float | None = Field(None, gt=0)
    fast_cycles: float | None = Field(None, gt=0)
    speedup: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _one_measure(self) -> Published:
        pairs = [(self.slow_us, self.fast_us), (self.slow_cycles, self.fast_cycles)]
        if any((a is None) != (b is None) for a, b in pairs):
            raise ValueError("give both the slow and the fast figure (slow_us with fast_us, or the cycles)")
        if self.speedup is None and all(a is None for a, _ in pairs):
            raise ValueError("give slow_us and fast_us, slow_cycles and fast_cycles, or speedup")
        return self

    def ratio(self) -> float:
        if self.slow_us is not None and self.fast_us is not None:
            return self.slow_us / self.fast_us
        if self.slow_cycles is not None and self.fast_cycles is not None:
            return self.slow_cycles / self.fast_cycles
        assert self.speedup is not None  # the validator makes sure one measure is there
        return self.speedup


class CaseInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: str
    source: str = Field(min_length=10)
    hardware: str
    conditions: str
    summary: str
    notes: str = ""


class RunInfo(BaseModel):
    """How the pair runs. `measure`: "total" compares the whole task (launch included, as msprof's Task Duration);
    "kernel" leaves the launch out (a source that timed the kernel body from inside, e.g. with GetSystemCycle).
    `scale`: the share of the published work the operators do (0.0625 when they run 1/16 of the rows, to keep the
    emulator's run short); the published times are scaled by it before they are compared with the model's, while
    the speedups are compared as they are (say in `notes` why the ratio does not depend on the size)."""

    model_config = ConfigDict(extra="forbid")

    case: str | None = None
    measure: Literal["total", "kernel"] = "total"
    scale: float = Field(1.0, gt=0, le=1)


class CaseFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    case: CaseInfo
    published: Published
    run: RunInfo = RunInfo()


@dataclass
class Outcome:
    id: str
    kind: str
    source: str
    published: float
    published_us: tuple[float, float] | None = None
    predicted_us: tuple[float, float] | None = None
    error: str | None = None

    @property
    def predicted(self) -> float | None:
        return self.predicted_us[0] / self.predicted_us[1] if self.predicted_us else None

    @property
    def log_error(self) -> float | None:
        p = self.predicted
        return abs(math.log(p / self.published)) if p else None


def load_case(folder: Path) -> CaseFile:
    """The case's description; a malformed one is a one-line error naming the file and the field."""
    path = folder / "case.toml"
    try:
        return CaseFile.model_validate(tomllib.loads(path.read_text()))
    except tomllib.TOMLDecodeError as exc:
        raise SystemExit(f"{path}: {exc}: fix the TOML syntax") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"]))
        raise SystemExit(f"{path}: {where}: {first['msg']}") from None


def run_pair(folder: Path, info: CaseFile, chip: str | None) -> Outcome:
    """Both operators of a case on the emulator; a failed or wrong run is the case's error, not the script's end."""
    from tilewise.analysis.operator import load_operator
    from tilewise.device.emulator import EmulatorDevice

    device = EmulatorDevice(chip=chip)
    out = Outcome(folder.name, info.case.kind, info.case.source, info.published.ratio())
    p = info.published
    if p.slow_us is not None and p.fast_us is not None:
        out.published_us = (p.slow_us * info.run.scale, p.fast_us * info.run.scale)
    times: list[float] = []
    for side in ("slow", "fast"):
        op = load_operator(folder / side)
        if op.manifest is None or not op.manifest.cases:
            out.error = f"{folder / side}: no tilewise.toml with cases: add the case the pair runs"
            return out
        case = op.manifest.case(info.run.case) if info.run.case else op.manifest.cases[0]
        m = device.run(op, RunRequest(case))
        if not m.ok or m.correct is False or m.time_us is None:
            why = m.error.message if m.error else "wrong output" if m.correct is False else "no timing"
            out.error = f"{side}: {why}"
            return out
        times.append(m.time_us - (m.launch_us or 0.0) if info.run.measure == "kernel" else m.time_us)
    out.predicted_us = (times[0], times[1])
    return out


def typical(log_errors: list[float]) -> float | None:
    """exp(mean |ln ratio|): how far off a prediction typically is, as a factor (None for no errors)."""
    return math.exp(sum(log_errors) / len(log_errors)) if log_errors else None


def figure(outcomes: list[Outcome]) -> float | None:
    """exp(mean |ln(predicted / published)|) over the cases that ran."""
    return typical([o.log_error for o in outcomes if o.log_error is not None])


def absolute_errors(outcomes: list[Outcome]) -> list[float]:
    """|ln(predicted / published)| of every absolute time published (both sides of a case that gives times)."""
    return [
        abs(math.log(pred / pub))
        for o in outcomes
        if o.error is None and o.published_us and o.predicted_us
        for pred, pub in zip(o.predicted_us, o.published_us, strict=True)
    ]


def model_error(outcomes: list[Outcome], source: str) -> dict:
    """The content of analysis/data/model_error.json (read by analysis/model_error.py): the typical error overall,
    per kind of change, and on absolute times."""
    ran = [o for o in outcomes if o.error is None]
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for o in ran:
        by_kind[o.kind].append(o)
    absolute = absolute_errors(ran)
    return {
        "source": source,
        "overall": {"factor": round(figure(ran) or 1.0, 3), "cases": len(ran)},
        "absolute": {"factor": round(typical(absolute) or 1.0, 3), "cases": len(absolute)} if absolute else None,
        "kinds": {k: {"factor": round(figure(g) or 1.0, 3), "cases": len(g)} for k, g in sorted(by_kind.items())},
    }


def report(outcomes: list[Outcome]) -> list[str]:
    lines = [f"{'case':34} {'kind':14} {'published':>9} {'predicted':>9} {'off by':>7}   times us (published -> model)"]
    for o in sorted(outcomes, key=lambda o: (o.kind, o.id)):
        if o.error:
            lines.append(f"{o.id:34} {o.kind:14} {o.published:9.2f}x {'-':>9}  error: {o.error}")
            continue
        assert o.predicted is not None and o.log_error is not None and o.predicted_us is not None
        pub = f"{o.published_us[0]:.1f}/{o.published_us[1]:.1f}" if o.published_us else "-"
        model = f"{o.predicted_us[0]:.1f}/{o.predicted_us[1]:.1f}"
        lines.append(
            f"{o.id:34} {o.kind:14} {o.published:8.2f}x {o.predicted:8.2f}x {math.exp(o.log_error):6.2f}x   "
            f"{pub} -> {model}"
        )
    lines.append("")
    lines.append("sources (published figures; each case.toml has the conditions and notes):")
    for o in sorted(outcomes, key=lambda o: (o.kind, o.id)):
        lines.append(f"  {o.id}: {o.source}")
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_kind[o.kind].append(o)
    lines.append("")
    for kind, group in sorted(by_kind.items()):
        f = figure(group)
        ran = sum(o.error is None for o in group)
        lines.append(
            f"kind {kind:22} {ran}/{len(group)} ran   typical error {f:.2f}x" if f else f"kind {kind}: none ran"
        )
    total = figure(outcomes)
    ran = sum(o.error is None for o in outcomes)
    absolute = absolute_errors(outcomes)
    if absolute:
        lines.append(f"absolute times: {len(absolute)} published, typically off by {typical(absolute) or 1.0:.2f}x")
    lines.append(
        f"overall: {ran}/{len(outcomes)} cases ran; exp(mean |ln(predicted / published)|) = "
        + (f"{total:.2f}" if total else "-")
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run the cases whose id contains this text")
    parser.add_argument("--chip", default=None, help="chip name or JSON file (default: 910B2)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write every case's figures as JSON")
    parser.add_argument("--cases", type=Path, default=CASES, help="folder of cases (default: benchmarks/fidelity)")
    parser.add_argument(
        "--write-error",
        nargs="?",
        const=ERROR_FILE,
        type=Path,
        metavar="OUT",
        help=f"write the residuals as the model's typical error (default {ERROR_FILE.relative_to(ROOT)})",
    )
    args = parser.parse_args(argv)
    folders = sorted(p for p in args.cases.iterdir() if (p / "case.toml").is_file()) if args.cases.is_dir() else []
    if args.only:
        folders = [f for f in folders if args.only in f.name]
    if not folders:
        print(f"no cases under {args.cases}")
        return 1
    outcomes = [run_pair(f, load_case(f), args.chip) for f in folders]
    for line in report(outcomes):
        print(line)
    if args.write_error:
        if args.only:
            print("not writing the model error from a subset of the cases: drop --only")
            return 1
        ran = sum(o.error is None for o in outcomes)
        source = f"benchmarks/fidelity.py: {ran} of {len(outcomes)} cases ran, chip {args.chip or '910B2'}"
        tmp = args.write_error.with_suffix(".tmp")
        tmp.write_text(json.dumps(model_error(outcomes, source), indent=2) + "\n")
        tmp.replace(args.write_error)  # a killed run leaves the old file, never half of a new one
        print(f"model error written to {args.write_error}")
    if args.json:
        rows = [{**o.__dict__, "predicted": o.predicted, "log_error": o.log_error} for o in outcomes]
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 1 if any(o.error for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
