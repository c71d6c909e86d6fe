"""Measure tilewise on the public corpus of operators (issue 12), its two partitions side by side (issue 32).

    python benchmarks/corpus.py DIR [--jobs 2] [--no-run] [--only SUBSTR] [--partition test] [--goldens] [--json OUT]

DIR is what `benchmarks/corpus_fetch.py` laid out. For every operator listed in `benchmarks/corpus/sources.toml`
it prints one line, and at the end the totals of the development partition (what tilewise has been tuned against)
and of the test partition (held out: reported, never tuned against) in two columns:

- parse: no syntax error (tilewise's `syntax-error` findings), or how many;
- model: the kernel entry, the OpDef inputs (operator projects), the tiling fields (where the kernel reads tiling
  data), and the queue and InitBuffer declarations found against an independent count of them in the sources;
- compile: the emulator builds host and kernel;
- run: every block runs under the sanitizer with random inputs (the manifest's cases, or for an operator project
  without one, a made-up case from its OpDef: each input 8x1024 of its first dtype); "clean" means no error and no
  memory warning (an access past a UB buffer or a GM tensor, or buffers laid past the UB's end, that the device
  makes without stopping);
- golden: the outputs match the numpy golden, for operators with a manifest written for the corpus.

Every operator is measured in its own worker process, so a crash in one costs only that one's figures. Builds are
cached by content (`TILEWISE_CACHE`), so a second run pays only for what changed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import tomllib
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# A memory warning (an access outside what the kernel should touch, InitBuffers past the UB's end): the device goes
# on, so the golden still decides "matches", but the run is not clean. An unaligned copy's dropped tail is not one.
from benchmarks.corpus_fetch import PARTITIONS, load_sources, operator_ids, operator_partitions
from tilewise.device.protocol import MEMORY_WARNING_KINDS, RunRequest

# An independent count of what the model should find, by plain text search over comment-free sources: a
# declaration `TQue<...> a, b;` (also TQueBind, TBuf) and every `InitBuffer(` call.
_QUEUE_DECL = re.compile(r"\bT(?:Que|QueBind|Buf)\s*<[^;{}()]*?>\s*([A-Za-z_][\w\s,\[\]]*?);")
_INIT_BUFFER = re.compile(r"\bInitBuffer\s*\(")
_OPDEF = re.compile(r":\s*public\s+(?:ops::)?OpDef\b")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_KERNEL_SUFFIXES = {".cpp", ".cc", ".h", ".hpp", ".asc", ".inc"}
RUN_TIMEOUT_S = 30.0
# what stops an operator before it runs: it did not build, or tilewise could not make its case
_BUILD_KINDS = {"compile_error", "unsupported_arch", "link_error", "no_host", "no_kernel", "bad_case"}


@dataclass
class OpResult:
    id: str
    partition: str = ""  # "development" or "test" (sources.toml): reported side by side, never mixed
    layout: str = "?"
    error: str | None = None  # the operator could not be loaded at all
    syntax_errors: int = 0
    syntax_first: str = ""
    entry: bool = False
    inputs: bool | None = None  # None: not applicable (kernel invocation without a manifest)
    tiling: bool | None = None  # None: the kernel reads no tiling data
    queues_found: int = 0
    queues_expected: int = 0
    init_found: int = 0
    init_expected: int = 0
    compiled: bool | None = None  # None: not attempted
    compile_error: str = ""
    ran: bool | None = None
    run_error: str = ""
    memory_warning: str = ""  # the first case's first memory warning: it ran, but not clean
    golden: bool | None = None  # None: no golden
    golden_detail: str = ""
    cases: int = 0
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def model_complete(self) -> bool:
        return (
            self.entry
            and self.inputs is not False
            and self.tiling is not False
            and self.queues_found >= self.queues_expected
            and self.init_found >= self.init_expected
        )


def device_text(text: str) -> str:
    """The text the device compiles: `#if` branches it does not take blanked (tilewise's choice of branch, the
    one thing the count borrows from it; what is a declaration is still decided by plain text search)."""
    from tilewise.analysis.preprocess.conditionals import neutralise_conditionals
    from tilewise.analysis.preprocess.context import PassContext

    ctx = PassContext.whole(text.encode("utf-8", "surrogatepass"))
    neutralise_conditionals(ctx)
    return bytes(ctx.buf).decode("utf-8", "replace")


def count_declarations(texts: list[str]) -> tuple[int, int]:
    """(queue declarators, InitBuffer calls) in the device's branch of these sources, counted without tilewise's
    parser."""
    queues = inits = 0
    for text in texts:
        plain = _COMMENT.sub(" ", device_text(text))
        for m in _QUEUE_DECL.finditer(plain):
            declarators = m.group(1)
            # `TBuf<> &buf` parameters and `using X = TQue<...>;` aliases are not declarations of a queue
            before = plain[max(0, m.start() - 40) : m.start()]
            if re.search(r"(using\s+\w+\s*=|typedef|[(,]\s*(const\s+)?)\s*(AscendC::)?$", before):
                continue
            queues += len([d for d in declarators.split(",") if d.strip()])
        inits += len(_INIT_BUFFER.findall(plain))
    return queues, inits


def made_up_case(op):
    """A case for an operator project without a manifest: each OpDef input 8x1024 of its first dtype."""
    from tilewise.analysis.manifest import Case, InputSpec

    inputs = {}
    for t in op.model.inputs:
        dtype = t.dtypes[0] if t.dtypes else "float16"
        try:
            spec = InputSpec(shape=[8, 1024], dtype=dtype)
        except ValueError:
            spec = InputSpec(shape=[8, 1024], dtype="float16")
        if t.param_type == "OPTIONAL":
            continue
        if t.param_type == "DYNAMIC":
            inputs[f"{t.name}[0]"] = spec
            inputs[f"{t.name}[1]"] = spec
        else:
            inputs[t.name] = spec
    return Case(name="made-up", inputs=inputs) if inputs else None


def measure(op_dir: str, op_id: str, run: bool, cache_dir: str | None) -> OpResult:
    """Everything corpus.py reports about one operator; never raises."""
    start = time.perf_counter()
    r = OpResult(id=op_id)
    try:
        _measure(Path(op_dir), r, run, Path(cache_dir) if cache_dir else None)
    except Exception as exc:  # noqa: BLE001 - one operator's failure is its own line, not the run's end
        r.error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:200]
    r.seconds = time.perf_counter() - start
    return r


def _measure(root: Path, r: OpResult, run: bool, cache_dir: Path | None) -> None:
    from tilewise.analysis.lint import lint
    from tilewise.analysis.operator import load_operator

    op = load_operator(root)
    model = op.model
    r.layout = model.layout
    syntax = [f for f in lint(op, rules=[]) if f.rule == "syntax-error"]
    r.syntax_errors = len(syntax)
    if syntax:
        f = syntax[0]
        r.syntax_first = f"{Path(f.file).relative_to(root) if f.file.startswith(str(root)) else f.file}:{f.line}"
    r.entry = bool(model.kernel.entry)
    if op.manifest is not None or (model.layout == "project" and _declares_opdef(op, model)):
        r.inputs = bool(model.inputs)
    elif model.layout == "project":
        # Some frameworks (ATB's mki) declare an operator's tensors outside AscendC's OpDef: nothing to read.
        r.notes.append("no OpDef in the sources: inputs are declared by the operator's framework")
    reads_tiling = bool(model.tiling_data_uses or model.tiling_reads)
    if reads_tiling:
        r.tiling = bool(model.tiling.fields or model.tiling.structs)
    kernel_texts = [
        sf.text
        for path, sf in op.sources.items()
        if path in set(model.kernel_files) and Path(path).suffix.lower() in _KERNEL_SUFFIXES
    ]
    r.queues_expected, r.init_expected = count_declarations(kernel_texts)
    r.queues_found, r.init_found = len(model.queues), len(model.init_buffers)
    if not run:
        return
    _run(op, r, cache_dir)


def _declares_opdef(op, model) -> bool:
    return model.opdef is not None or any(
        _OPDEF.search(op.sources[p].text) for p in model.host_files if p in op.sources
    )


def _run(op, r: OpResult, cache_dir: Path | None) -> None:
    from tilewise.device.emulator import EmulatorDevice

    manifest = op.manifest
    cases = list(manifest.cases) if manifest and manifest.cases else []
    if not cases and op.model.layout == "project":
        made_up = made_up_case(op)
        cases = [made_up] if made_up else []
    device = EmulatorDevice(cache_dir=cache_dir, timeout_s=RUN_TIMEOUT_S)
    if not cases:
        # Nothing says what the program reads (a kernel-invocation main() sizes its own input files): it is only
        # compiled, with the DTYPE_* macros left to the sources' own defaults.
        r.notes.append("no case (a kernel-invocation program without a manifest): compiled only")
        _compile_only(op, r, device)
        return
    r.cases = len(cases)
    has_golden = bool(manifest and manifest.golden)
    r.compiled, r.ran = True, True
    if has_golden:
        r.golden = True
    for case in cases:
        m = device.run(op, RunRequest(case, seed=0))
        if m.error:
            kind = m.error.kind
            where = f"{Path(m.error.file).name}:{m.error.line} " if m.error.file else ""
            detail = f"{kind}: {where}{m.error.message.splitlines()[0] if m.error.message else ''}"[:300]
            if kind in _BUILD_KINDS:
                r.compiled, r.compile_error = False, detail
                r.ran = None
                r.golden = False if has_golden else None
                return
            r.ran, r.run_error = False, f"[{case.name}] {detail}"
            r.golden = False if has_golden else None
            return
        mem = next((w for w in m.warnings if w.kind in MEMORY_WARNING_KINDS), None)
        if mem is not None and not r.memory_warning:
            where = f"{Path(mem.file).name}:{mem.line} " if mem.file else ""
            r.memory_warning = f"[{case.name}] warning {mem.kind}: {where}{mem.message.splitlines()[0]}"[:300]
        if has_golden and m.correct is False and not r.golden_detail:  # the first failing case tells most
            r.golden = False
            bad = next((o for o in m.outputs if not o.ok), None)
            r.golden_detail = f"[{case.name}] {bad.name}: {bad.mismatches} mismatches" if bad else f"[{case.name}]"


def _compile_only(op, r: OpResult, device) -> None:
    from tilewise.device.emulator.build import BuildError
    from tilewise.device.protocol import RunError

    try:
        device.builder.build(op, {})
        r.compiled = True
    except BuildError as exc:
        e: RunError = exc.error
        where = f"{Path(e.file).name}:{e.line} " if e.file else ""
        r.compiled, r.compile_error = False, f"{e.kind}: {where}{e.message.splitlines()[0] if e.message else ''}"[:300]


# ---- report -----------------------------------------------------------------------------------------------------
def _mark(value: bool | None) -> str:
    return "-" if value is None else ("ok" if value else "NO")


def line_for(r: OpResult) -> str:
    if r.error:
        return f"{r.id}: tool error: {r.error}"
    parse = "ok" if r.syntax_errors == 0 else f"{r.syntax_errors} errors ({r.syntax_first})"
    model = (
        f"entry {_mark(r.entry)} inputs {_mark(r.inputs)} tiling {_mark(r.tiling)} "
        f"queues {r.queues_found}/{r.queues_expected} InitBuffer {r.init_found}/{r.init_expected}"
    )
    out = f"{r.id} [{r.layout}]: parse {parse}; {model}"
    if r.compiled is not None or r.ran is not None:
        run = "warn" if r.ran and r.memory_warning else _mark(r.ran)
        out += f"; compile {_mark(r.compiled)} run {run} golden {_mark(r.golden)}"
    known = (
        f"known operator bug: {_KNOWN_BUGS[r.id]}"
        if r.id in _KNOWN_BUGS
        else (f"sources not valid C++: {_BROKEN_SOURCES[r.id]}" if r.id in _BROKEN_SOURCES else "")
    )
    for text in (r.compile_error, r.run_error, r.memory_warning, r.golden_detail, *r.notes, known):
        if text:
            out += f"\n    {text}"
    return out


def summary(results: list[OpResult], ran: bool) -> list[tuple[str, str]]:
    """The totals over `results` as (label, figure) rows: what `totals` prints one a line and `partition_table`
    prints side by side for the development and test partitions."""
    n = len(results)
    loaded = [r for r in results if not r.error]

    def pct(k: int, d: int) -> str:
        return f"{k}/{d} ({100 * k / d:.1f}%)" if d else f"{k}/0"

    layouts = Counter(r.layout for r in loaded)
    rows = [
        ("operators", str(n)),
        ("  by layout", ", ".join(f"{k} {layouts[k]}" for k in sorted(layouts)) or "-"),
        ("  not loaded", str(n - len(loaded))),
        ("parse with no syntax error", pct(sum(r.syntax_errors == 0 for r in loaded), n)),
    ]
    valid = [r for r in loaded if r.id not in _BROKEN_SOURCES]
    rows += [
        ("  with no false syntax error", pct(sum(r.syntax_errors == 0 for r in valid), len(valid))),
        ("  sources not valid C++ (corpus/known_bugs.toml)", str(len(loaded) - len(valid))),
        ("model complete", pct(sum(r.model_complete for r in loaded), n)),
        ("  kernel entry found", pct(sum(r.entry for r in loaded), n)),
    ]
    qf = sum(min(r.queues_found, r.queues_expected) for r in loaded)
    qe = sum(r.queues_expected for r in loaded)
    fi = sum(min(r.init_found, r.init_expected) for r in loaded)
    ie = sum(r.init_expected for r in loaded)
    rows += [("queue declarations in the model", pct(qf, qe)), ("InitBuffer calls in the model", pct(fi, ie))]
    if not ran:
        return rows
    built = sum(bool(r.compiled) for r in loaded)
    foreign = sum(r.compile_error.startswith("unsupported_arch") for r in loaded)
    with_case = [r for r in loaded if r.cases]
    clean = sum(bool(r.ran) and not r.memory_warning for r in with_case)
    with_golden = [r for r in results if r.id in _GOLDEN_IDS]
    sound = [r for r in with_golden if r.id not in _KNOWN_BUGS]
    buggy = [r for r in with_golden if r.id in _KNOWN_BUGS]
    caught = sum(r.golden is False or r.ran is False or r.compiled is False or bool(r.memory_warning) for r in buggy)
    return rows + [
        ("compiles in the emulator", pct(built, n)),
        ("  not compiled: Ascend 950 (arch35) kernels, not modelled", str(foreign)),
        ("runs clean under the sanitizer (no error, no memory warning)", pct(clean, n)),
        ("  with a case (a manifest, or an OpDef to make one from)", str(len(with_case))),
        ("with a golden: compile, run and match", pct(sum(bool(r.golden) for r in with_golden), len(with_golden))),
        ("  of those not known to be buggy", pct(sum(bool(r.golden) for r in sound), len(sound))),
        ("  known to be buggy, caught here (an error, a memory warning or a mismatch)", pct(caught, len(buggy))),
    ]


def totals(results: list[OpResult], ran: bool) -> list[str]:
    """The totals over `results`, one `label: figure` a line."""
    return [f"{label}: {figure}" for label, figure in summary(results, ran)]


def partition_table(results: list[OpResult], ran: bool, partitions: dict[str, str]) -> list[str]:
    """The totals of the development and the test partition side by side (issue 32: the test partition's figures
    are the honest ones, so they are never folded into the development corpus's). A partition with no operator
    in this run shows '-'."""
    groups = {p: [r for r in results if partitions.get(r.id) == p] for p in PARTITIONS}
    tables = {p: dict(summary(rs, ran)) if rs else {} for p, rs in groups.items()}
    labels = [label for label, _ in summary(results, ran)]
    width = max(len(label) for label in labels)
    cols = {p: max([len(p), *(len(v) for v in tables[p].values())]) for p in PARTITIONS}
    lines = [f"{'':<{width}} | " + " | ".join(f"{p:<{cols[p]}}" for p in PARTITIONS)]
    for label in labels:
        lines.append(f"{label:<{width}} | " + " | ".join(f"{tables[p].get(label, '-'):<{cols[p]}}" for p in PARTITIONS))
    return lines


_GOLDEN_IDS: set[str] = set()
_KNOWN_BUGS: dict[str, str] = {}
_BROKEN_SOURCES: dict[str, str] = {}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", type=Path, help="the corpus laid out by benchmarks/corpus_fetch.py")
    ap.add_argument("--jobs", type=int, default=2, help="operators measured at once (default 2)")
    ap.add_argument("--no-run", action="store_true", help="parse and model only: no compile, no run")
    ap.add_argument("--goldens", action="store_true", help="only the operators with a manifest and golden")
    ap.add_argument("--only", action="append", default=[], help="only operators whose id contains this")
    ap.add_argument(
        "--partition", choices=[*PARTITIONS, "all"], default="all", help="only one partition's operators (default all)"
    )
    ap.add_argument("--json", type=Path, help="also write every operator's figures to this JSON file")
    ap.add_argument("--progress", action="store_true", help="print each operator's line to stderr as it finishes")
    ap.add_argument("--cache", help="the emulator's build cache (default: TILEWISE_CACHE or ~/.cache/tilewise)")
    args = ap.parse_args(argv)

    repos = load_sources()
    ids = operator_ids(repos)
    partitions = operator_partitions(repos)
    manifests = Path(__file__).resolve().parent / "corpus" / "manifests"
    _GOLDEN_IDS.update(i for i in ids if (manifests / i / "tilewise.toml").is_file())
    known = tomllib.loads((manifests.parent / "known_bugs.toml").read_text())
    _KNOWN_BUGS.update(known["bugs"])
    _BROKEN_SOURCES.update(known["broken_sources"])
    if args.goldens:
        ids = [i for i in ids if i in _GOLDEN_IDS]
    if args.only:
        ids = [i for i in ids if any(s in i for s in args.only)]
    if args.partition != "all":
        ids = [i for i in ids if partitions[i] == args.partition]
    missing = [i for i in ids if not (args.dir / i).is_dir()]
    if missing:
        print(
            f"{args.dir / missing[0]}: not there ({len(missing)} operators missing); lay the corpus out first: "
            f"python benchmarks/corpus_fetch.py MIRRORS {args.dir}",
            file=sys.stderr,
        )
        return 2
    results: dict[str, OpResult] = {}
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(measure, str(args.dir / i), i, not args.no_run, args.cache): i for i in ids}
        for fut in as_completed(futures):
            op_id = futures[fut]
            try:
                r = fut.result()
            except Exception as exc:  # noqa: BLE001 - the worker died (a crash in native code)
                r = OpResult(id=op_id, error=f"worker died: {exc}")
            r.partition = partitions[op_id]
            results[op_id] = r
            if args.progress:
                print(f"[{len(results)}/{len(ids)}] {line_for(r)}", file=sys.stderr, flush=True)
    ordered = [results[i] for i in ids]
    for r in ordered:
        print(line_for(r))
    print()
    for line in partition_table(ordered, not args.no_run, partitions):
        print(line)
    if args.json:
        tmp = args.json.with_suffix(".tmp")
        tmp.write_text(json.dumps([asdict(r) for r in ordered], indent=1))
        tmp.replace(args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
