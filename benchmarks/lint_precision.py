"""How far the lint rules can be trusted on public operators (issue 13).

    python benchmarks/lint_precision.py [DIR] [--rule ID] [--list unlabelled|all|false|stale] [--fixes] [--cases]
                                        [--jobs N]

DIR is what `benchmarks/corpus_fetch.py` laid out (default ~/corpus). Every operator listed in
`benchmarks/corpus/sources.toml` is linted, and each finding is matched with the verdict a person gave it after
reading the operator's code, in `benchmarks/corpus/lint_labels/<rule>.toml`:

    [[label]]
    op = "cannsamples/operator/ascendc/0_introduction/add_custom"   # the operator id in sources.toml
    file = "op_kernel/add_custom.cpp"                                # relative to the operator
    line = 42
    verdict = "true"        # true: worth a developer's time; low: true but not worth acting on; false: wrong
    reason = "one line: why"

Printed per rule and overall, then per rule for the development and the test partition side by side (sources.toml
names each repository's partition): findings, labelled, the share of labelled findings that are false positives, the
share worth acting on, and labels whose finding no longer fires (a `false` one gone is a fixed false positive; a
`true` one gone is a lost true finding). With `--fixes`, every labelled finding's "Apply" fix (a fix the rule calls
safe) on an operator with a golden is applied to a scratch copy and every case is run: a fix that breaks a build,
a run or the golden is counted and listed. Fixes offered only as "Verify on the emulator" are counted apart.
With `--cases`, operators with manifest cases are linted with the facts their runs give (as `tilewise lint
--cases`): premises about run-time sizes get proved, so more findings become warnings and more fixes "Apply".
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.corpus_fetch import load_sources, operator_ids, operator_partitions

if TYPE_CHECKING:
    from tilewise.analysis.findings import Finding

LABELS = Path(__file__).resolve().parent / "corpus" / "lint_labels"
VERDICTS = ("true", "low", "false")


@dataclass(frozen=True)
class Key:
    rule: str
    op: str
    file: str
    line: int


@dataclass
class Label:
    key: Key
    verdict: str
    reason: str
    source: str  # labels file and index, for error messages


@dataclass
class Found:
    key: Key
    severity: str
    message: str
    fixes: list  # analysis.findings.Fix


def load_labels(folder: Path = LABELS) -> dict[Key, Label]:
    """Every label, keyed by rule, operator, file and line. A malformed entry stops with file and entry named."""
    labels: dict[Key, Label] = {}
    for path in sorted(folder.glob("*.toml")):
        rule = path.stem
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise SystemExit(f"{path}: {exc}: fix the TOML syntax") from exc
        for i, entry in enumerate(data.get("label", []), 1):
            where = f"{path}: label {i}"
            missing = [k for k in ("op", "file", "line", "verdict") if k not in entry]
            if missing:
                raise SystemExit(f"{where}: missing {', '.join(missing)}: every label needs op, file, line, verdict")
            if entry["verdict"] not in VERDICTS:
                raise SystemExit(f"{where}: verdict {entry['verdict']!r}: use one of {', '.join(VERDICTS)}")
            key = Key(entry.get("rule", rule), entry["op"], entry["file"], int(entry["line"]))
            if key in labels:
                raise SystemExit(f"{where}: {key.op} {key.file}:{key.line} is labelled twice: keep one")
            labels[key] = Label(key, entry["verdict"], entry.get("reason", ""), where)
    return labels


def corpus_facts(root: Path, jobs: int) -> dict[str, list]:
    """--cases: each operator with manifest cases, run once per case for lint's facts (device/facts.py)."""
    from concurrent.futures import ProcessPoolExecutor

    ids = [i for i in operator_ids(load_sources()) if (root / i / "tilewise.toml").is_file()]
    with ProcessPoolExecutor(max_workers=max(jobs, 1)) as pool:
        return dict(zip(ids, pool.map(_facts_of, [str(root / i) for i in ids]), strict=True))


def _facts_of(op_dir: str) -> list:
    """In a worker: one operator's case facts; none when it cannot be loaded or no case runs."""
    from benchmarks.corpus import RUN_TIMEOUT_S
    from tilewise.analysis.operator import load_operator
    from tilewise.device.emulator import EmulatorDevice
    from tilewise.device.facts import case_facts

    try:
        op = load_operator(op_dir)
        cases = list(op.manifest.cases) if op.manifest and op.manifest.cases else []
        return case_facts(EmulatorDevice(timeout_s=RUN_TIMEOUT_S), op, cases) if cases else []
    except Exception:  # noqa: BLE001 - an operator that cannot run is linted from its sources alone
        return []


def lint_corpus(root: Path, only_rule: str | None = None, facts: dict[str, list] | None = None) -> list[Found]:
    """Every finding tilewise reports on the corpus (syntax errors included), keyed like the labels. `facts`: per
    operator, what runs of its cases showed (--cases)."""
    import logging

    from tilewise.analysis.lint import lint
    from tilewise.analysis.operator import load_operator

    class _RuleFailures(logging.Handler):  # a rule that raises is logged and skipped by lint(): count it here
        def emit(self, record: logging.LogRecord) -> None:
            found.append(Found(Key("tool-error", op_id, "", 0), "error", record.getMessage(), []))

    found: list[Found] = []
    logger = logging.getLogger("tilewise.analysis.lint")
    handler, propagate = _RuleFailures(logging.ERROR), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    op_id = ""
    try:
        for op_id in operator_ids(load_sources()):
            op_dir = root / op_id
            if not op_dir.is_dir():
                continue
            try:
                op = load_operator(op_dir)
                findings = lint(op, facts=(facts or {}).get(op_id) or None)
            except Exception as exc:  # noqa: BLE001 - one operator's tool error is its own line
                found.append(Found(Key("tool-error", op_id, "", 0), "error", f"{type(exc).__name__}: {exc}", []))
                continue
            for f in findings:
                if only_rule and f.rule != only_rule:
                    continue
                rel = str(Path(f.file).relative_to(op_dir)) if f.file.startswith(str(op_dir)) else f.file
                found.append(Found(Key(f.rule, op_id, rel, f.line), f.severity, f.message, f.fixes))
    finally:  # a second call (or a caller's own logging) must not inherit this one's handler
        logger.removeHandler(handler)
        logger.propagate = propagate
    return found


def report(found: list[Found], labels: dict[Key, Label], only_rule: str | None = None) -> list[str]:
    by_rule: dict[str, list[Found]] = defaultdict(list)
    for f in found:
        by_rule[f.key.rule].append(f)
    current = {f.key for f in found}
    stale: dict[str, Counter] = defaultdict(Counter)
    for key, label in labels.items():
        if key not in current and (not only_rule or key.rule == only_rule):
            stale[key.rule][label.verdict] += 1
    rules = sorted(set(by_rule) | set(stale))
    lines = [
        f"{'rule':28} {'findings':>8} {'labelled':>8} {'true':>5} {'low':>5} {'false':>5} {'FP':>6} "
        f"{'worth':>6}   labels no longer found"
    ]
    total: Counter[str] = Counter()
    for rule in rules:
        verdicts = Counter(labels[f.key].verdict for f in by_rule[rule] if f.key in labels)
        n = sum(verdicts.values())
        total.update(verdicts)
        total["findings"] += len(by_rule[rule])
        gone = stale.get(rule, Counter())
        lines.append(
            f"{rule:28} {len(by_rule[rule]):8} {n:8} {verdicts['true']:5} {verdicts['low']:5} "
            f"{verdicts['false']:5} {_pct(verdicts['false'], n):>6} {_pct(verdicts['true'], n):>6}   "
            + (", ".join(f"{v} {gone[v]}" for v in VERDICTS if gone[v]) or "-")
        )
    n = sum(total[v] for v in VERDICTS)
    lines.append(
        f"{'overall':28} {total['findings']:8} {n:8} {total['true']:5} {total['low']:5} {total['false']:5} "
        f"{_pct(total['false'], n):>6} {_pct(total['true'], n):>6}"
    )
    lines.append("FP: labelled findings that are false positives; worth: labelled findings worth a developer's time")
    return lines


def by_partition(found: list[Found], labels: dict[Key, Label], partitions: dict[str, str]) -> list[str]:
    """Per rule, the development and the test partition side by side: findings, labelled, false positives among
    the labelled, and errors or warnings labelled false (what the issue's bar is: none). A test-partition finding
    is labelled only to measure; no rule changes because of one (README, "The public corpus")."""
    names = ("development", "test")
    rows: dict[str, dict[str, Counter]] = defaultdict(lambda: {n: Counter() for n in names})
    for f in found:
        part = partitions.get(f.key.op, "development")
        cell = rows[f.key.rule][part]
        cell["findings"] += 1
        if f.key in labels:
            verdict = labels[f.key].verdict
            cell["labelled"] += 1
            cell[verdict] += 1
            if verdict == "false" and f.severity in ("error", "warning"):
                cell["false_loud"] += 1
    head = f"{'rule':28} | {'development: found lab FP loud':>32} | {'test: found lab FP loud':>32}"
    lines = [head]
    total: dict[str, Counter[str]] = {n: Counter() for n in names}
    for rule in sorted(rows):
        cells = []
        for n in names:
            c = rows[rule][n]
            total[n].update(c)
            cells.append(
                f"{c['findings']:>11} {c['labelled']:>5} {_pct(c['false'], c['labelled']):>5} {c['false_loud']:>5}"
            )
        lines.append(f"{rule:28} | {cells[0]:>32} | {cells[1]:>32}")
    cells = [
        f"{total[n]['findings']:>11} {total[n]['labelled']:>5} {_pct(total[n]['false'], total[n]['labelled']):>5} "
        f"{total[n]['false_loud']:>5}"
        for n in names
    ]
    lines.append(f"{'overall':28} | {cells[0]:>32} | {cells[1]:>32}")
    lines.append("lab: labelled findings; FP: of those, false; loud: false errors and warnings")
    return lines


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.0f}%" if b else "-"


def listing(found: list[Found], labels: dict[Key, Label], which: str) -> list[str]:
    lines = []
    if which == "stale":
        current = {f.key for f in found}
        for key, label in sorted(labels.items(), key=lambda kv: (kv[0].rule, kv[0].op, kv[0].file, kv[0].line)):
            if key not in current:
                lines.append(f"[{label.verdict}] {key.rule} {key.op} {key.file}:{key.line}  ({label.reason})")
        return lines
    for f in sorted(found, key=lambda f: (f.key.rule, f.key.op, f.key.file, f.key.line)):
        verdict = labels[f.key].verdict if f.key in labels else None
        if which == "unlabelled" and verdict is not None:
            continue
        if which == "false" and verdict != "false":
            continue
        tag = f"[{verdict}]" if verdict else "[?]"
        fixes = "".join(f"\n      fix{'' if x.safe else ' (verify)'}: {x.title}" for x in f.fixes)
        lines.append(f"{tag} {f.key.rule} {f.severity} {f.key.op} {f.key.file}:{f.key.line}\n    {f.message}{fixes}")
    return lines


@dataclass
class FixCheck:
    op: str
    rule: str
    file: str
    line: int
    title: str
    safe: bool
    checked: bool = False  # some case proved something either way
    correct: bool = False
    detail: str = ""


def check_fixes(
    root: Path, found: list[Found], labels: dict[Key, Label], jobs: int, facts: dict[str, list] | None = None
) -> list[str]:
    """Apply each labelled finding's fixes, one at a time, on every case of its operator (the manifest's, else
    corpus.py's made-up case for an operator project); list what breaks."""
    from concurrent.futures import ProcessPoolExecutor

    by_op: dict[str, list[tuple[Key, int]]] = defaultdict(list)
    for f in found:
        if f.key in labels:
            by_op[f.key.op].extend((f.key, i) for i in range(len(f.fixes)))
    results: list[FixCheck] = []
    with ProcessPoolExecutor(max_workers=max(jobs, 1)) as pool:
        for checks in pool.map(
            _check_operator,
            [str(root)] * len(by_op),
            list(by_op),
            list(by_op.values()),
            [(facts or {}).get(op) for op in by_op],
        ):
            results.extend(checks)
    safe = [r for r in results if r.safe]
    broke = [r for r in safe if r.checked and not r.correct]
    verify = [r for r in results if not r.safe]
    lines = [
        f"Apply fixes on labelled findings: {len(safe)}; checked on the emulator: "
        f"{sum(r.checked for r in safe)}; break: {len(broke)}",
        f"Verify-on-the-emulator fixes: {len(verify)}; checked: {sum(r.checked for r in verify)}; "
        f"would break: {sum(1 for r in verify if r.checked and not r.correct)} (never applied unverified)",
    ]
    lines += [f"  BREAKS {r.rule} {r.op} {r.file}:{r.line} '{r.title}': {r.detail}" for r in broke]
    lines += [
        f"  verify caught: {r.rule} {r.op} {r.file}:{r.line}: {r.detail}" for r in verify if r.checked and not r.correct
    ]
    unchecked = [r for r in safe if not r.checked]
    lines += [f"  not checked: {r.rule} {r.op} {r.file}:{r.line}: {r.detail}" for r in unchecked]
    return lines


def _check_operator(root: str, op_id: str, wanted: list[tuple[Key, int]], facts: list | None = None) -> list[FixCheck]:
    """In a worker process: lint the operator again (fixes carry byte offsets into its sources), try each fix."""
    from benchmarks.corpus import RUN_TIMEOUT_S, made_up_case
    from tilewise.analysis.lint import lint
    from tilewise.analysis.operator import load_operator
    from tilewise.device.emulator import EmulatorDevice
    from tilewise.search.verify_fix import verify_fix

    op_dir = Path(root) / op_id
    op = load_operator(op_dir)
    cases = list(op.manifest.cases) if op.manifest and op.manifest.cases else []
    if not cases and op.model.layout == "project" and (made_up := made_up_case(op)) is not None:
        cases = [made_up]
    device = EmulatorDevice(timeout_s=RUN_TIMEOUT_S)
    by_key: dict[Key, Finding] = {}
    for f in lint(op, facts=facts or None):
        rel = str(Path(f.file).relative_to(op_dir)) if f.file.startswith(str(op_dir)) else f.file
        by_key.setdefault(Key(f.rule, op_id, rel, f.line), f)
    out = []
    for key, i in wanted:
        finding = by_key.get(key)
        if finding is None or i >= len(finding.fixes):
            continue
        fix = finding.fixes[i]
        check = FixCheck(op_id, key.rule, key.file, key.line, fix.title, fix.safe)
        try:
            verdict = verify_fix(op, fix, device, cases)
            check.checked, check.correct = verdict.checked, verdict.correct
            check.detail = verdict.message()
        except Exception as exc:  # noqa: BLE001 - one fix's tool error is its own line
            check.detail = f"{type(exc).__name__}: {exc}"
        out.append(check)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", nargs="?", default=str(Path.home() / "corpus"))
    ap.add_argument("--rule", help="only this rule's findings and labels")
    ap.add_argument("--list", choices=("unlabelled", "all", "false", "stale"), help="print findings to label or read")
    ap.add_argument("--fixes", action="store_true", help="apply every labelled finding's fixes and run the cases")
    ap.add_argument(
        "--cases",
        action="store_true",
        help="run each operator's manifest cases first and lint with what they showed (as lint --cases)",
    )
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    root = Path(args.dir).expanduser()
    if not root.is_dir():
        print(f"{root}: no corpus here; lay it out with `python benchmarks/corpus_fetch.py MIRRORS {root}`")
        return 2
    labels = load_labels()
    if args.rule:
        labels = {k: v for k, v in labels.items() if k.rule == args.rule}
    facts = corpus_facts(root, args.jobs) if args.cases else None
    found = lint_corpus(root, args.rule, facts)
    if args.list:
        print("\n".join(listing(found, labels, args.list)))
        return 0
    print("\n".join(report(found, labels, args.rule)))
    print()
    print("\n".join(by_partition(found, labels, operator_partitions())))
    errors = [f for f in found if f.key.rule == "tool-error"]
    for f in errors:
        print(f"tool error on {f.key.op}: {f.message}")
    if args.fixes:
        print("\n".join(check_fixes(root, found, labels, args.jobs, facts)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
