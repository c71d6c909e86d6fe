"""The calibrated chip file: the base chip's file with the fitted constants, a `sources` entry for each saying that
it was calibrated, on what and against how many micro-kernels, and what it was before, and a `calibration` section
with the model's error before and after. Written atomically, as a file `load_chip` and `--chip FILE` read like any
other; `calibration_json` is the same calibration as `tilewise calibrate --format json` prints it.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tilewise.analysis.chip import Chip
from tilewise.search.calibrate.constants import Constant, as_chip
from tilewise.search.calibrate.kernels import MicroKernel

if TYPE_CHECKING:
    from tilewise.search.calibrate.run import Calibration, ConstantChange

_SAYS = "; constants calibrated on "


def finish_chip(cal: Calibration, base: Chip, kernels: list[MicroKernel], name: str) -> dict:
    """`cal.chip` named `name`, with its sources and calibration section; validated as a chip."""
    data = dict(cal.chip)
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    data["name"] = name
    own = (base.description or base.name).split(_SAYS)[
        0
    ]  # a calibrated base: its own words, not the last calibration's
    data["description"] = f"{own}{_SAYS}{cal.device} by tilewise calibrate ({when})"
    sources = dict(data.get("sources") or {})
    fitted = [c for c in cal.constants if c.fitted]
    by_source: dict[str, list[ConstantChange]] = {}
    for c in fitted:
        by_source.setdefault(Constant(c.key).source_key, []).append(c)
    for key, changes in by_source.items():
        # the micro-kernels of the stage that fitted it (every vector micro-kernel copies too, but not in that stage)
        vector = key.startswith("timing.vector.")
        timed = [k for k in kernels if (k.family == "vector") == vector and any(c.key in k.touches for c in changes)]
        if vector:  # a row's own micro-kernels, by name
            what, some = "; ".join(k.name for k in timed), ""
        else:
            what = ", ".join(f"{n} {family}" for family, n in Counter(k.family for k in timed).items())
            moving = max(c.kernels for c in changes)
            some = f", {moving} of whose times move with it" if moving < len(timed) else ""
        was = "; ".join(f"{_short(c.key)} was {c.before:g}" for c in changes)
        sources[key] = (
            f"calibrated by tilewise calibrate on {cal.device} {when}: fit to {len(timed)} micro-kernels ({what}"
            f"{some}) from the base chip {base.name}, whose {was}"
        )
    data["sources"] = sources
    data["calibration"] = {
        "tool": "tilewise calibrate",
        "device": cal.device,
        "date": when,
        "base_chip": base.name,
        "micro_kernels": len(kernels),
        "typical_error_before": _round(cal.typical_before),
        "typical_error_after": _round(cal.typical_after),
        "calibrated": sorted(by_source),
        "left": {**{c.key: c.why for c in cal.constants if not c.fitted}, **cal.kept},
    }
    as_chip(data)  # what load_chip will read back
    return data


def write_chip(data: dict, path: Path) -> None:
    """Write the chip file through a temporary file in the same folder, renamed over `path`: a reader never sees
    half a file, and a failed write leaves the old one."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_writable(path: Path) -> str | None:
    """Why `path` cannot be written (checked before an hour of runs is spent), or None."""
    path = Path(path)
    if path.is_dir():
        return f"{path} is a folder; give a file name such as {path / 'chip.json'}"
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        return f"the folder {folder} does not exist; create it or give a path in an existing folder"
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        return f"cannot write in {folder} ({exc.strerror}); give a path in a folder you can write"
    os.close(fd)
    os.unlink(tmp)
    return None


def calibration_json(cal: Calibration, out: str | None = None) -> dict:
    return {
        "chip": out,
        "name": cal.chip.get("name"),
        "base": cal.base,
        "device": cal.device,
        "typical_error_before": _round(cal.typical_before),
        "typical_error_after": _round(cal.typical_after),
        "runs": cal.runs,
        "seconds": round(cal.seconds, 1),
        "micro_kernels": [
            {
                "name": r.name,
                "family": r.family,
                "device_us": r.device_us,
                "model_before_us": r.before_us,
                "model_after_us": r.after_us,
                "error_before": _round(r.error_before),
                "error_after": _round(r.error_after),
                "note": r.note or None,
            }
            for r in cal.rows
        ],
        "constants": [
            {
                "key": c.key,
                "unit": c.unit,
                "before": c.before,
                "after": c.after,
                "fitted": c.fitted,
                "why_left": c.why or None,
                "micro_kernels": c.kernels,
            }
            for c in cal.constants
        ],
        "left": cal.kept,
    }


def _short(key: str) -> str:
    """`vector.Add.fp16.startup` -> `fp16 startup`; other keys as they are."""
    parts = key.split(".")
    return f"{parts[2]} {parts[3].replace('_', ' ')}" if parts[0] == "vector" else key


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 5)
