"""Does `tilewise suggest --verify --top 3` undo a de-optimisation it has never seen written that way?

    python benchmarks/bank.py [--examples] [--corpus DIR] [--only SUBSTR] [--partition development|test|all]
                              [--recipes blind|dev|all] [--recipe NAME] [--limit N] [--top 3] [--cases 2]
                              [--jobs 1] [--bank FILE] [--json OUT]

Each operator (the project's fast examples, and with --corpus the public corpus operators that have a golden and
run correctly as shipped) is slowed by hand with every recipe that fits it. Two sets of recipes (`--recipes`):
"dev", written below while the detectors were being built, differently from the mining transforms in
analysis/motifs (other spellings, other places in the loop, other factors), so a hit is retrieval that generalises
rather than a transform recognising its own output; and "blind", benchmarks/blind_recipes.py, written before looking
at what the detectors find (issue 32), in the spellings developers use. For each slowed operator the script runs the
suggest pipeline with verification and prints whether one of the top suggestions is verified correct and recovers
at least RECOVER of the lost time:

    recovered = (slow - verified) / (slow - fast)

The slowed texts are an overlay on the operator where it stands (nothing is copied or written). The slowed operator
runs on its own first: a recipe that does not slow it by at least MIN_LOSS is reported and left out of the share
(there is nothing to recover), and one that breaks it (a failure, a wrong result, a sanitizer warning the shipped
operator does not have) is reported apart. The last lines are the development and the test partition
(benchmarks/corpus/sources.toml; the examples are development) side by side: the share of slowed operators
recovered, and the same per recipe. `--cases N` keeps the N largest cases of each manifest (the de-optimisations
show there); `--limit N` takes at most N operators of each partition, spread over the list.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.blind_recipes import RECIPES as BLIND_RECIPES
from benchmarks.corpus_fetch import PARTITIONS, operator_partitions
from benchmarks.partition_table import partition_of, side_by_side
from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import Operator, load_operator
from tilewise.cli.bank_command import example_operators
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import Measurement, RunRequest
from tilewise.search.bank.store import load_bank, load_banks
from tilewise.search.bank.suggest import MemoDevice, suggest
from tilewise.search.verify_fix import failure_text

RECOVER = 0.9
MIN_LOSS = 1.03

Recipe = Callable[[Operator], dict[str, str] | None]  # the slowed texts of the files it changed, or None


def _kernel_texts(op: Operator) -> dict[str, str]:
    return {p: op.sources[p].text for p in op.model.kernel_files if p in op.sources}


def _host_texts(op: Operator) -> dict[str, str]:
    return {p: op.sources[p].text for p in op.model.host_files if p in op.sources}


def _each(texts: dict[str, str], change: Callable[[str], str]) -> dict[str, str] | None:
    out = {p: change(t) for p, t in texts.items()}
    out = {p: t for p, t in out.items() if t != texts[p]}
    return out or None


# ---- the recipes: hand-written slowdowns, each meant to be undone by one motif ------------------------------------


def one_buffer_per_init(op: Operator) -> dict[str, str] | None:
    """double-buffer: every queue's InitBuffer asks for one buffer, written as a literal in the call (the count
    constant is left as it is)."""
    queues = {q.name for q in op.model.queues if q.kind in ("TQue", "TQueBind")}

    def change(text: str) -> str:
        def one(m: re.Match[str]) -> str:
            return f"{m.group(1)}{m.group(2)}, 1,"

        names = "|".join(map(re.escape, queues))
        pattern = rf"(\bInitBuffer\s*\(\s*)((?:this->)?(?:{names}))\s*,\s*[^,()]+,"
        return re.sub(pattern, one, text) if queues else text

    return _each(_kernel_texts(op), change)


def barrier_first_in_loop(op: Operator) -> dict[str, str] | None:
    """pipe-sync: a full barrier as the FIRST statement of the tile loop (the mining transform puts it last)."""

    def change(text: str) -> str:
        for m in re.finditer(r"for\s*\([^;]*;[^;]*;[^)]*\)\s*\{\n(\s*)", text):
            body = text[m.end() : m.end() + 400]
            if re.search(r"\b(?:CopyIn|Compute|CopyOut)\w*\s*\(", body.split("}")[0]):
                return text[: m.end()] + "PipeBarrier<PIPE_ALL>();\n" + m.group(1) + text[m.end() :]
        return text

    return _each(_kernel_texts(op), change)


def _with_literal(op: Operator, knob, value: int) -> dict[str, str]:
    sf = op.sources[knob.file]
    return {knob.file: (sf.data[: knob.literal.start] + str(value).encode() + sf.data[knob.literal.end :]).decode()}


def tiny_tiles(op: Operator) -> dict[str, str] | None:
    """large-tiles: the tile constant cut sixteenfold (the transform: eightfold), kept a multiple of 64."""
    for k in op.model.knobs:
        if k.role == "tile" and k.value >= 16 * 64:
            return _with_literal(op, k, k.value // 16 // 64 * 64)
    return None


def two_cores(op: Operator) -> dict[str, str] | None:
    """all-cores: the block-count constant set to 2 (the transform: an eighth)."""
    for k in op.model.knobs:
        if k.role == "block_dim" and k.value > 4:
            return _with_literal(op, k, 2)
    return None


def padded_copy_in(op: Operator) -> dict[str, str] | None:
    """aligned-copy: the first aligned GM->UB DataCopy becomes a DataCopyPad with its parameters in named
    variables, in a block of its own."""

    def change(text: str) -> str:
        m = re.search(r"\n(\s*)DataCopy\(\s*(\w+)\s*,\s*(\w+Gm\[[^\]]*\])\s*,\s*([^;]+?)\);", text)
        if m is None:
            return text
        indent, dst, src, n = m.groups()
        decl = re.search(rf"LocalTensor<\s*(\w+)\s*>\s*{re.escape(dst)}\b", text)
        if decl is None:
            return text
        t = decl.group(1)
        block = (
            f"\n{indent}{{\n"
            f"{indent}    DataCopyExtParams slowCopy{{1, static_cast<uint32_t>(({n}) * sizeof({t})), 0, 0, 0}};\n"
            f"{indent}    DataCopyPadExtParams<{t}> noPad{{false, 0, 0, 0}};\n"
            f"{indent}    DataCopyPad({dst}, {src}, slowCopy, noPad);\n{indent}}}"
        )
        return text[: m.start()] + block + text[m.end() :]

    return _each(_kernel_texts(op), change)


def spill_through_gm(op: Operator) -> dict[str, str] | None:
    """ub-resident: the output tile is stored, reloaded behind full barriers (the transform waits on events), and
    stored again."""

    def change(text: str) -> str:
        m = re.search(r"\n(\s*)DataCopy\(\s*(\w+Gm\[[^\]]*\])\s*,\s*(\w+)\s*,\s*([^;]+?)\);", text)
        if m is None:
            return text
        indent, dst, src, n = m.groups()
        spill = (
            f"\n{indent}DataCopy({dst}, {src}, {n});\n{indent}PipeBarrier<PIPE_ALL>();"
            f"\n{indent}DataCopy({src}, {dst}, {n});\n{indent}PipeBarrier<PIPE_ALL>();"
        )
        return text[: m.start()] + spill + text[m.start() :]

    return _each(_kernel_texts(op), change)


_ELEMENTWISE = r"\n(\s*)(Adds|Muls|Add|Sub|Mul)\(\s*(\w+)\s*,\s*(\w+)\s*,\s*([^,;()]+?)\s*,\s*([^,;()]+?)\s*\);"
_OPS = {"Adds": "+", "Muls": "*", "Add": "+", "Sub": "-", "Mul": "*"}


def scalar_elementwise(op: Operator) -> dict[str, str] | None:
    """vector-not-scalar: the first elementwise vector call (fp32 tiles) becomes an index loop of GetValue/SetValue,
    fenced by full barriers (the mining transform uses a for loop fenced by events)."""

    def change(text: str) -> str:
        for m in re.finditer(_ELEMENTWISE, text):
            indent, name, dst, a, b, n = m.groups()
            decl = re.search(rf"LocalTensor<\s*(\w+)\s*>\s*{re.escape(dst)}\b", text)
            if decl is None or decl.group(1) != "float":
                continue
            other = f"{b}.GetValue(idx)" if name in ("Add", "Sub", "Mul") else f"static_cast<float>({b})"
            body = (
                f"\n{indent}PipeBarrier<PIPE_ALL>();\n{indent}uint32_t idx = 0;\n{indent}while (idx < ({n})) {{"
                f"\n{indent}    {dst}.SetValue(idx, {a}.GetValue(idx) {_OPS[name]} {other});\n{indent}    ++idx;"
                f"\n{indent}}}\n{indent}PipeBarrier<PIPE_ALL>();"
            )
            return text[: m.start()] + body + text[m.end() :]
        return text

    return _each(_kernel_texts(op), change)


def cast_there_and_back(op: Operator) -> dict[str, str] | None:
    """cast-round-trip: after a widening Cast, an exact narrow-and-widen pair with no barriers between (the
    transform fences each with a PipeBarrier<PIPE_V>), rounding with CAST_ROUND."""

    def change(text: str) -> str:
        for m in re.finditer(r"\n(\s*)Cast\(\s*(\w+)\s*,\s*(\w+)\s*,\s*RoundMode::(\w+)\s*,\s*([^;]+?)\);", text):
            indent, wide, narrow, mode, n = m.groups()
            wt = re.search(rf"LocalTensor<\s*(\w+)\s*>\s*{re.escape(wide)}\b", text)
            nt = re.search(rf"LocalTensor<\s*(\w+)\s*>\s*{re.escape(narrow)}\b", text)
            if wt is None or nt is None or wt.group(1) != "float" or nt.group(1) != "half":
                continue
            extra = (
                f"\n{indent}Cast({narrow}, {wide}, RoundMode::CAST_ROUND, {n});"
                f"\n{indent}Cast({wide}, {narrow}, RoundMode::{mode}, {n});"
            )
            return text[: m.end()] + extra + text[m.end() :]
        return text

    return _each(_kernel_texts(op), change)


def four_part_copy_in(op: Operator) -> dict[str, str] | None:
    """merged-copy: the first GM->UB DataCopy in four pieces under an alignment guard (the transform: rows or
    256-byte chunks)."""

    def change(text: str) -> str:
        m = re.search(r"\n(\s*)DataCopy\(\s*(\w+)\s*,\s*(\w+)Gm\[([^\]]*)\]\s*,\s*([^;]+?)\);", text)
        if m is None:
            return text
        indent, dst, gm, off, n = m.groups()
        decl = re.search(rf"LocalTensor<\s*(\w+)\s*>\s*{re.escape(dst)}\b", text)
        if decl is None:
            return text
        t = decl.group(1)
        piece = f"(({n}) / 4)"
        new = (
            f"\n{indent}if (({n}) % (4 * 32 / sizeof({t})) == 0) {{"
            f"\n{indent}    for (uint32_t part = 0; part < 4; ++part) {{"
            f"\n{indent}        DataCopy({dst}[part * {piece}], {gm}Gm[{off} + part * {piece}], {piece});"
            f"\n{indent}    }}\n{indent}}} else {{\n{indent}    DataCopy({dst}, {gm}Gm[{off}], {n});\n{indent}}}"
        )
        return text[: m.start()] + new + text[m.end() :]

    return _each(_kernel_texts(op), change)


DEV_RECIPES: dict[str, tuple[str, Recipe]] = {
    "one-buffer-per-init": ("double-buffer", one_buffer_per_init),
    "barrier-first-in-loop": ("pipe-sync", barrier_first_in_loop),
    "tiny-tiles": ("large-tiles", tiny_tiles),
    "two-cores": ("all-cores", two_cores),
    "padded-copy-in": ("aligned-copy", padded_copy_in),
    "spill-through-gm": ("ub-resident", spill_through_gm),
    "scalar-elementwise": ("vector-not-scalar", scalar_elementwise),
    "cast-there-and-back": ("cast-round-trip", cast_there_and_back),
    "four-part-copy-in": ("merged-copy", four_part_copy_in),
}

# `--recipes`: "dev", the recipes above (written while the detectors were built), "blind", benchmarks/blind_recipes.py's
# (written before looking at what the detectors find, issue 32), or "all".
RECIPES: dict[str, tuple[str, Recipe]] = {**DEV_RECIPES, **BLIND_RECIPES}
RECIPE_SETS = {"dev": set(DEV_RECIPES), "blind": set(BLIND_RECIPES)}
assert not RECIPE_SETS["dev"] & RECIPE_SETS["blind"], "a blind recipe's name is taken"


@dataclass
class Outcome:
    operator: str
    recipe: str
    motif: str
    partition: str = "development"  # benchmarks/corpus/sources.toml's (the examples are development)
    fast_us: float | None = None
    slow_us: float | None = None
    best_us: float | None = None
    best_motif: str | None = None
    recovered: float | None = None
    hit: bool = False
    own: bool = False  # the motif the recipe took out was itself among the suggestions and recovered the loss
    measured: dict[str, float] = field(default_factory=dict)  # each verified-correct suggestion's time
    note: str = ""

    @property
    def slowed(self) -> bool:
        return bool(self.slow_us and self.fast_us and self.slow_us >= self.fast_us * MIN_LOSS)

    @property
    def broke(self) -> bool:
        return self.note.startswith("the slowed operator fails")


def _largest(cases: list[Case], n: int) -> list[Case]:
    return sorted(cases, key=lambda c: -c.input_elements)[:n] if n > 0 else cases


# The operator as shipped, per folder: (cases, its runs), measured once for all the recipes that fit it.
_FAST: dict[Path, tuple[list[Case], list[Measurement]]] = {}


def evaluate(root: Path, name: str, recipe_name: str, device, bank, args) -> Outcome | None:
    motif, recipe = RECIPES[recipe_name]
    op = load_operator(root)
    if op.manifest is None or not op.manifest.cases:
        return None
    slowed = recipe(op)
    if slowed is None:
        return None
    out = Outcome(name, recipe_name, motif)
    if root not in _FAST:
        cases = _largest(list(op.manifest.cases), args.cases)
        # The slowed texts are an overlay on the operator where it stands (an ATB kernel includes headers from
        # around its folder, so a copy elsewhere would not build); nothing is written.
        _FAST[root] = (cases, [device.run(op, RunRequest(c)) for c in cases])
    cases, fast_runs = _FAST[root]
    if any(not m.ok or m.correct is False or m.time_us is None for m in fast_runs):
        out.note = "the operator fails as shipped"
        return out
    out.fast_us = sum(m.time_us or 0.0 for m in fast_runs)
    slow_op = load_operator(root, overlay=slowed)
    # The slowed operator runs first on its own: one that is not slower (nothing to recover) or that breaks (a
    # wrong result, a failure, a sanitizer warning the shipped operator does not have) costs no suggest. The
    # runs are remembered, so suggest's profile below reads them instead of running again.
    memo = MemoDevice(device)
    slow_runs = [memo.run(slow_op, RunRequest(c, keep_outputs=True)) for c in cases]
    shipped_warnings = {w.kind for m in fast_runs for w in m.warnings}
    for c, m in zip(cases, slow_runs, strict=True):
        new = sorted({w.kind for w in m.warnings} - shipped_warnings)
        if not m.ok or m.correct is False or new:
            why = failure_text(m) if not m.ok or m.correct is False else f"new sanitizer warning {', '.join(new)}"
            out.note = f"the slowed operator fails: case {c.name}: {why}"
            return out
    out.slow_us = sum(m.time_us or 0.0 for m in slow_runs)
    if not out.slowed:
        out.note = "the recipe does not slow it (nothing to recover)"
        return out
    result = suggest(slow_op, memo, bank, cases, top=args.top, verify=True)
    if result.problems:
        out.note = f"the slowed operator fails: {result.problems[0]}"
        return out
    out.slow_us = result.profile.time_us if result.profile else out.slow_us
    if not out.slowed:
        out.note = "the recipe does not slow it (nothing to recover)"
        return out
    assert out.slow_us is not None and out.fast_us is not None
    for s in result.suggestions:
        v = s.verified
        if v is None or not v.correct or v.time_us is None:
            continue
        out.measured[s.motif] = v.time_us
        if out.best_us is None or v.time_us < out.best_us:
            out.best_us, out.best_motif = v.time_us, s.motif
    if out.best_us is not None:
        out.recovered = (out.slow_us - out.best_us) / (out.slow_us - out.fast_us)
        out.hit = out.recovered >= RECOVER
    mine = out.measured.get(motif)
    out.own = mine is not None and (out.slow_us - mine) / (out.slow_us - out.fast_us) >= RECOVER
    shown = [s.motif for s in result.suggestions]
    out.note = f"suggested {', '.join(shown) or 'nothing'}"
    return out


def corpus_operators(corpus: Path, only: str | None) -> list[tuple[str, Path]]:
    from benchmarks.tune_corpus import operators

    return operators(corpus, only)


def spread(items: list, n: int | None) -> list:
    """At most n of the items, evenly spaced over the list (its order is the repositories' and folders'), so a
    limited run samples every repository rather than the first."""
    if n is None or n >= len(items):
        return items
    if n <= 0:
        return []
    return [items[i * len(items) // n] for i in range(n)]


def _line(o: Outcome) -> str:
    mark = "HIT " if o.hit else ("miss" if o.slowed else "--  ")
    figures = (
        f"fast {o.fast_us:.1f} slow {o.slow_us:.1f} best {o.best_us:.1f} µs ({o.best_motif}, "
        f"{o.recovered:.0%} recovered)"
        if o.best_us is not None and o.slow_us and o.fast_us and o.recovered is not None
        else (f"fast {o.fast_us:.1f} slow {o.slow_us:.1f} µs" if o.slow_us and o.fast_us else "")
    )
    return f"{mark} [{o.partition[:4]}] {o.operator:<50} {o.recipe:<27} {figures} {o.note}"


def summary(outcomes: list[Outcome], top: int) -> list[tuple[str, str]]:
    """The totals of one partition as (label, figure) rows, per recipe after the overall ones."""
    slowed = [o for o in outcomes if o.slowed]

    def share(k: int, n: int) -> str:
        return f"{k}/{n} ({k / n:.0%})" if n else "0/0"

    rows = [
        ("recipe applications", str(len(outcomes))),
        ("  broke the operator (left out)", str(sum(o.broke for o in outcomes))),
        ("  did not slow it (left out)", str(sum(o.note.startswith("the recipe does not slow") for o in outcomes))),
        ("slowed operators", str(len(slowed))),
        (f"recovered >= {RECOVER:.0%} by a verified top-{top}", share(sum(o.hit for o in slowed), len(slowed))),
        ("  by the very motif the recipe took out", share(sum(o.own for o in slowed), len(slowed))),
    ]
    for name in sorted({o.recipe for o in outcomes}):
        mine = [o for o in slowed if o.recipe == name]
        tried = sum(o.recipe == name for o in outcomes)
        rows.append((f"  {name} ({RECIPES[name][0]})", f"{sum(o.hit for o in mine)}/{len(mine)} of {tried}"))
    return rows


def partition_table(outcomes: list[Outcome], top: int) -> list[str]:
    """The development and the test partition side by side (issue 32), recipe rows included."""
    return side_by_side({p: summary([o for o in outcomes if o.partition == p], top) for p in PARTITIONS})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--only")
    parser.add_argument("--partition", choices=[*PARTITIONS, "all"], default="all")
    parser.add_argument("--recipes", choices=["blind", "dev", "all"], default="all", help="which recipe set")
    parser.add_argument("--recipe", action="append", choices=sorted(RECIPES))
    parser.add_argument("--limit", type=int, help="at most N operators per partition, spread over the list")
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--cases", type=int, default=2, help="the N largest cases of each manifest (0: all)")
    parser.add_argument("--jobs", "-n", type=int, default=1, help="operators evaluated at once (default 1)")
    parser.add_argument("--bank", type=Path, help="read this bank instead of the shipped and the user's")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    chosen = args.recipe or [n for n in RECIPES if args.recipes == "all" or n in RECIPE_SETS[args.recipes]]
    partitions = operator_partitions()
    targets: list[tuple[str, Path, str]] = []
    if args.examples:
        targets += [(f"examples/{d.name}", d, "development") for d in example_operators()]
    if args.corpus:
        targets += [(i, d, partition_of(i, partitions)) for i, d in corpus_operators(args.corpus, args.only)]
    if args.only:
        targets = [t for t in targets if args.only in t[0]]
    if args.partition != "all":
        targets = [t for t in targets if t[2] == args.partition]
    targets = [t for p in PARTITIONS for t in spread([t for t in targets if t[2] == p], args.limit)]
    outcomes: list[Outcome] = []
    work = [(name, root, part) for name, root, part in targets]
    if args.jobs > 1:
        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            futures = [pool.submit(_operator, name, root, part, chosen, args) for name, root, part in work]
            for fut in futures:
                for o in fut.result():
                    outcomes.append(o)
                    print(_line(o), flush=True)
    else:
        for name, root, part in work:
            for o in _operator(name, root, part, chosen, args, on_outcome=lambda o: print(_line(o), flush=True)):
                outcomes.append(o)
    print()
    if not any(o.slowed for o in outcomes):
        print("no recipe slowed any operator")
    for line in partition_table(outcomes, args.top):
        print(line)
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1))
    return 0


_STATE: dict[str, object] = {}


def _operator(name: str, root: Path, part: str, chosen: list[str], args, on_outcome=None) -> list[Outcome]:
    """Every chosen recipe on one operator (in a worker process with --jobs, which makes its own device)."""
    if "device" not in _STATE:
        _STATE["bank"] = load_bank(args.bank, missing_ok=False) if args.bank else load_banks()[0]
        _STATE["device"] = EmulatorDevice()
    found = []
    for recipe_name in chosen:
        try:
            o = evaluate(root, name, recipe_name, _STATE["device"], _STATE["bank"], args)
        except Exception as exc:  # noqa: BLE001 - one operator's failure is its own line
            o = Outcome(name, recipe_name, RECIPES[recipe_name][0], note=f"{type(exc).__name__}: {exc}")
        if o is None:
            continue
        o.partition = part
        found.append(o)
        if on_outcome is not None:
            on_outcome(o)
    return found


if __name__ == "__main__":
    raise SystemExit(main())
