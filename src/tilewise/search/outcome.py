"""What one measurement says about a configuration: the problem a user reads, the one word a strategy is told, and
the memory overruns it made (a candidate may make the shipped configuration's, never new ones)."""

from __future__ import annotations

from tilewise.device.protocol import MEMORY_WARNING_KINDS, Measurement, RunWarning

Site = tuple[str, str | None, int | None]  # (warning kind, file, line)


def overrun_message(w: RunWarning) -> str:
    return (
        f"{w.kind} at {w.file}:{w.line}: {w.message} (the shipped configuration does not overrun there, "
        f"so this tiling is refused even where its outputs match)"
    )


def failure_kind(m: Measurement, overrun: RunWarning | None) -> str:
    """One word for why a measured configuration failed, for the strategy (`Strategy.tell`'s `failure`)."""
    if m.error is not None:
        return m.error.kind
    if not m.ok:
        return "did_not_run"
    if m.correct is False:
        return "wrong_output"
    if overrun is not None:
        return overrun.kind
    return "no_timing"


def overruns(m: Measurement) -> dict[Site, RunWarning]:
    return {(w.kind, w.file, w.line): w for w in m.warnings if w.kind in MEMORY_WARNING_KINDS}


def problem_of(m: Measurement) -> str | None:
    """What is wrong with a measurement, said for the user (None: it ran, correct and timed)."""
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
