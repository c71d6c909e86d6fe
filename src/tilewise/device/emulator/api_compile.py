"""Compiling the API index's probes (api_probe.py) against the emulator's headers, and telling which forms fail.

The probes of one header make one unit: the kernel's first include (`kernel_operator.h`, precompiled as build.py
compiles every kernel), then the header the form is documented in, then the probes, each in its own namespace.
A unit that compiles clears all its forms. One that fails is traced by line: every probe an error or a "required
from here" points into is a suspect, the rest are compiled again without them, and each suspect is compiled alone,
whose first error is the form's. A header the emulator lacks fails its forms with that as their error (and says
whether the form itself compiles without it). Outcomes are cached by the unit's text, the flags and the emulator
headers' hash, so a second measurement only compiles what changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from tilewise.analysis.api_index import Api, ApiIndex, Form
from tilewise.device.emulator.api_probe import PRELUDE, Probe, make_probe
from tilewise.device.emulator.build import (
    CXX,
    HOST_BASE_INCLUDES,
    HOST_FLAGS,
    INCLUDE_DIR,
    Builder,
    build_cache_dir,
    headers_hash,
)
from tilewise.device.emulator.host_prelude import KNOBS
from tilewise.device.emulator.tools import build_timeout, run_tool, write_atomic

KERNEL_UMBRELLA = "kernel_operator.h"
MAX_ROUNDS = 8  # compiles of one header's probes before the rest are tried one by one
_MISSING = re.compile(r"fatal error: (\S+): No such file or directory")


@dataclass(slots=True)
class Outcome:
    """What the compile said of one form: "ok", "fail" (with the failing checks and the first error) or "skip"
    (no probe could be written: `error` says why)."""

    key: str
    qualified: str
    header: str
    unit: str
    side: str
    status: str
    checks: str = ""
    error: str = ""


class ProbeCompiler:
    """Compiles probes with the emulator's flags (build.py's kernel or host flags and include folders)."""

    def __init__(self, cache_dir: Path | None = None, jobs: int = 2, timeout_s: float | None = None):
        self.jobs = jobs
        self.timeout_s = timeout_s or build_timeout()
        builder = Builder(cache_dir, jobs=jobs, timeout_s=self.timeout_s)
        kflags, pch = builder.kernel_flags()
        self.argv = {
            "kernel": [CXX, *kflags, *pch, *HOST_BASE_INCLUDES, "-fsyntax-only"],
            "host": [CXX, *HOST_FLAGS, *HOST_BASE_INCLUDES, f"-include{INCLUDE_DIR / KNOBS}", "-fsyntax-only"],
        }
        self.dir = build_cache_dir(cache_dir) / "api_probe"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.salt = headers_hash()

    # ---- one unit -------------------------------------------------------------------------------------------
    def compile(self, text: str, side: str) -> tuple[bool, str, Path]:
        """(compiled, stderr, the unit's path), from the cache when this text was compiled with these headers."""
        key = hashlib.sha256("\0".join([self.salt, *self.argv[side], text]).encode()).hexdigest()[:24]
        src = self.dir / f"{key}.cpp"
        memo = self.dir / f"{key}.json"
        if memo.is_file():
            got = json.loads(memo.read_text())
            return got["ok"], got["stderr"], src
        write_atomic(src, text)
        proc = run_tool([*self.argv[side], str(src)], self.timeout_s)
        ok, err = (False, "the compiler timed out") if proc is None else (proc.returncode == 0, proc.stderr)
        if proc is not None and proc.returncode >= 0:  # a compiler killed from outside is not a result
            write_atomic(memo, json.dumps({"ok": ok, "stderr": err[-20000:]}))
        return ok, err, src

    # ---- a header's probes ----------------------------------------------------------------------------------
    def measure(self, index: ApiIndex, keep=None) -> list[Outcome]:
        """An outcome for every form of `index` (or those `keep(api, form)` accepts), header by header."""
        groups: dict[tuple[str, str], list[Probe]] = defaultdict(list)
        skipped: list[Outcome] = []
        for n, (api, form) in enumerate(index.forms()):
            if keep is not None and not keep(api, form):
                continue
            probe = make_probe(api, form, n)
            if probe.skip:
                skipped.append(_outcome(api, form, "skip", error=probe.skip))
            else:
                groups[(api.side, api.header)].append(probe)
        with ThreadPoolExecutor(self.jobs) as pool:
            results = list(pool.map(lambda item: self._group(item[0][0], item[0][1], item[1]), groups.items()))
        return skipped + [o for r in results for o in r]

    def _group(self, side: str, header: str, probes: list[Probe]) -> list[Outcome]:
        missing = self.header_error(side, header)
        if missing:
            alone = self._resolve(side, None, probes)
            return [
                _outcome(
                    o.api,
                    o.form,
                    "fail",
                    "header",
                    f"{missing}"
                    + (" (the form compiles without it)" if o.status == "ok" else f"; and without it: {o.error}"),
                )
                for o in alone
            ]
        return [_outcome(r.api, r.form, r.status, r.checks, r.error) for r in self._resolve(side, header, probes)]

    def header_error(self, side: str, header: str) -> str:
        """ "" when `header` can be included (after kernel_operator.h on the kernel side), else its first error."""
        text = self._prologue(side, header)
        ok, err, src = self.compile(text, side)
        if ok:
            return ""
        m = _MISSING.search(err)
        if m:
            return f"header missing: {m.group(1)}"
        return "header fails: " + first_error(err, src)

    def _prologue(self, side: str, header: str | None) -> str:
        lines = [f'#include "{KERNEL_UMBRELLA}"'] if side == "kernel" else []
        if header and header != KERNEL_UMBRELLA:
            lines.append(f'#include "{header}"')
        return "\n".join(lines) + "\n" + PRELUDE

    def _resolve(self, side: str, header: str | None, probes: list[Probe]) -> list[_Result]:
        """Each probe's result. The probes are compiled together and each error is traced to the probe its line
        or instantiation chain points into; those fail with their first error, and the rest are compiled again
        without them (GCC reports a failing instantiation once, for its first user only) until they compile.
        Probes an error cannot be traced to are compiled alone."""
        todo, results = list(probes), list[_Result]()
        for _ in range(MAX_ROUNDS):
            if not todo:
                break
            text, owners = assemble(self._prologue(side, header), todo)
            ok, err, src = self.compile(text, side)
            if ok:
                return results + [_Result(p.api, p.form, "ok") for p in todo]
            failed = trace_errors(err, src, owners)
            if not failed:
                break  # nothing to trace: every probe is tried alone
            results += [
                _Result(todo[i].api, todo[i].form, "fail", checks, error) for i, (checks, error) in failed.items()
            ]
            todo = [p for i, p in enumerate(todo) if i not in failed]
        return results + [self._alone(side, header, p) for p in todo]

    def _alone(self, side: str, header: str | None, probe: Probe) -> _Result:
        text, owners = assemble(self._prologue(side, header), [probe])
        ok, err, src = self.compile(text, side)
        if ok:
            return _Result(probe.api, probe.form, "ok")
        checks, error = trace_errors(err, src, owners).get(0, ("unit", first_error(err, src)))
        return _Result(probe.api, probe.form, "fail", checks, error)


@dataclass(slots=True)
class _Result:
    api: Api
    form: Form
    status: str
    checks: str = ""
    error: str = ""


def _outcome(api: Api, form: Form, status: str, checks: str = "", error: str = "") -> Outcome:
    return Outcome(form.key, api.qualified, api.header, api.unit, api.side, status, checks, error)


def assemble(prologue: str, probes: list[Probe]) -> tuple[str, dict[int, tuple[int, str]]]:
    """The unit's text and, for each of its lines a probe wrote, (the probe's position, the check it makes)."""
    lines = prologue.rstrip("\n").split("\n")
    owners: dict[int, tuple[int, str]] = {}
    for i, probe in enumerate(probes):
        for check, text in probe.lines:
            for part in text.split("\n"):
                lines.append(part)
                owners[len(lines)] = (i, check)
    return "\n".join(lines) + "\n", owners


_DIAG = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)?\s+(?P<what>(?:fatal )?error|required from|note|warning)"
)


_CONTEXT = re.compile(r"^[^:\n]+: (?:In |At global scope)")


def trace_errors(stderr: str, src: Path, owners: dict[int, tuple[int, str]]) -> dict[int, tuple[str, str]]:
    """For each probe an error points into: (the checks that failed, comma-separated, and its first error). An
    error in the unit belongs to the probe of its line; one in a header to the probe of the last line of the
    unit its instantiation chain ("required from here") named before it."""
    unit = str(src)
    out: dict[int, tuple[list[str], str]] = {}
    chain: int | None = None
    lines = stderr.splitlines()
    for line in lines:
        m = _DIAG.match(line)
        if m is None:
            if _CONTEXT.match(line):  # a new function or instantiation context: its chain follows
                chain = None
            continue
        here = int(m.group("line")) if m.group("file") == unit else None
        if m.group("what").startswith("required"):
            if here is not None:
                chain = here
            continue
        if "error" not in m.group("what"):
            continue
        where = here if here is not None else chain
        if where is None or where not in owners:
            continue
        probe, check = owners[where]
        checks, first = out.setdefault(probe, ([], first_error(line, src)))
        if (check or "frame") not in checks:
            checks.append(check or "frame")
    return {p: (",".join(c), e) for p, (c, e) in out.items()}


def first_error(stderr: str, src: Path) -> str:
    """The first error, `file:line: message`, its file relative to the emulator's headers ("probe" for the unit)."""
    m = re.search(r"^([^:\n]+):(\d+):(?:\d+:)? (?:fatal )?error: (.*)$", stderr, re.M)
    if m is None:
        tail = stderr.strip().splitlines()
        return tail[-1][:300] if tail else "no diagnostic"
    where = m.group(1)
    if where == str(src):
        return f"probe: {m.group(3)[:300]}"  # its line is the unit's, which says nothing outside it
    else:
        try:
            where = str(Path(where).resolve().relative_to(INCLUDE_DIR))
        except ValueError:
            where = os.path.basename(where)
    return f"{where}:{m.group(2)}: {m.group(3)[:300]}"


def outcome_dicts(outcomes: list[Outcome]) -> list[dict]:
    return [asdict(o) for o in outcomes]
