"""Does `tilewise suggest --verify --top 3` undo a de-optimisation it has never seen written that way?

    python benchmarks/bank.py [--examples] [--corpus DIR] [--only SUBSTR] [--recipe NAME] [--top 3]
                              [--cases 2] [--bank FILE] [--json OUT]

Each operator (the project's fast examples, and with --corpus the public corpus operators that have a golden and
run correctly as shipped) is slowed by hand with every recipe below that fits it. The recipes are written here,
differently from the mining transforms in analysis/motifs (other spellings, other places in the loop, other
factors), so a hit is retrieval that generalises rather than a transform recognising its own output. For each slowed
operator the script runs the suggest pipeline with verification and prints whether one of the top suggestions is
verified correct and recovers at least RECOVER of the lost time:

    recovered = (slow - verified) / (slow - fast)

The slowed texts are an overlay on the operator where it stands (nothing is copied or written). A recipe that does
not slow the operator by at least MIN_LOSS is reported and left out of the share (there is nothing to recover). The
last lines are the share of slowed operators recovered, overall and per recipe. `--cases N` keeps the N largest
cases of each manifest (the de-optimisations show there).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import Operator, load_operator
from tilewise.cli.bank_command import example_operators
from tilewise.device.emulator import EmulatorDevice
from tilewise.device.protocol import RunRequest
from tilewise.search.bank.store import load_bank, load_banks
from tilewise.search.bank.suggest import suggest

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


RECIPES: dict[str, tuple[str, Recipe]] = {
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


@dataclass
class Outcome:
    operator: str
    recipe: str
    motif: str
    fast_us: float | None = None
    slow_us: float | None = None
    best_us: float | None = None
    best_motif: str | None = None
    recovered: float | None = None
    hit: bool = False
    own: bool = False  # the motif the recipe took out was itself among the suggestions and recovered the loss
    measured: dict[str, float] = field(default_factory=dict)  # each verified-correct suggestion's time
    note: str = ""


def _largest(cases: list[Case], n: int) -> list[Case]:
    return sorted(cases, key=lambda c: -c.input_elements)[:n] if n > 0 else cases


def evaluate(root: Path, name: str, recipe_name: str, device, bank, args) -> Outcome | None:
    motif, recipe = RECIPES[recipe_name]
    op = load_operator(root)
    if op.manifest is None or not op.manifest.cases:
        return None
    slowed = recipe(op)
    if slowed is None:
        return None
    out = Outcome(name, recipe_name, motif)
    cases = _largest(list(op.manifest.cases), args.cases)
    # The slowed texts are an overlay on the operator where it stands (an ATB kernel includes headers from
    # around its folder, so a copy elsewhere would not build); nothing is written.
    fast_runs = [device.run(op, RunRequest(c)) for c in cases]
    if any(not m.ok or m.correct is False or m.time_us is None for m in fast_runs):
        out.note = "the operator fails as shipped"
        return out
    out.fast_us = sum(m.time_us or 0.0 for m in fast_runs)
    slow_op = load_operator(root, overlay=slowed)
    slow_cases = cases
    result = suggest(slow_op, device, bank, slow_cases, top=args.top, verify=True)
    if result.problems:
        out.note = f"the slowed operator fails: {result.problems[0]}"
        return out
    out.slow_us = result.profile.time_us if result.profile else None
    if not out.slow_us or out.slow_us < out.fast_us * MIN_LOSS:
        out.note = "the recipe does not slow it (nothing to recover)"
        return out
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--only")
    parser.add_argument("--recipe", action="append", choices=sorted(RECIPES))
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--cases", type=int, default=2, help="the N largest cases of each manifest (0: all)")
    parser.add_argument("--bank", type=Path, help="read this bank instead of the shipped and the user's")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    bank = load_bank(args.bank, missing_ok=False) if args.bank else load_banks()[0]
    device = EmulatorDevice()
    targets: list[tuple[str, Path]] = []
    if args.examples:
        targets += [(f"examples/{d.name}", d) for d in example_operators()]
    if args.corpus:
        targets += corpus_operators(args.corpus, args.only)
    if args.only:
        targets = [(n, d) for n, d in targets if args.only in n]
    outcomes: list[Outcome] = []
    for name, root in targets:
        for recipe_name in args.recipe or RECIPES:
            try:
                o = evaluate(root, name, recipe_name, device, bank, args)
            except Exception as exc:  # noqa: BLE001 - one operator's failure is its own line
                o = Outcome(name, recipe_name, RECIPES[recipe_name][0], note=f"{type(exc).__name__}: {exc}")
            if o is None:
                continue
            outcomes.append(o)
            lost = bool(o.slow_us and o.fast_us and o.slow_us >= o.fast_us * MIN_LOSS)
            mark = "HIT " if o.hit else ("miss" if lost else "--  ")
            figures = (
                f"fast {o.fast_us:.1f} slow {o.slow_us:.1f} best {o.best_us:.1f} µs ({o.best_motif}, "
                f"{o.recovered:.0%} recovered)"
                if o.best_us is not None and o.slow_us and o.fast_us
                else ""
            )
            print(f"{mark} {name:<50} {o.recipe:<22} {figures} {o.note}", flush=True)
    slowed = [o for o in outcomes if o.slow_us and o.fast_us and o.slow_us >= o.fast_us * MIN_LOSS]
    hits = [o for o in slowed if o.hit]
    own = [o for o in slowed if o.own]
    broke = [o for o in outcomes if o.note.startswith("the slowed operator fails")]
    if not slowed:
        print("\nno recipe slowed any operator")
    else:
        print(
            f"\n{len(hits)}/{len(slowed)} slowed operators recovered to >= {RECOVER:.0%} of the lost time by a "
            "verified "
            f"top-{args.top} suggestion ({len(hits) / len(slowed):.0%}); {len(own)}/{len(slowed)} by the very motif "
            f"the recipe took out ({len(own) / len(slowed):.0%}). {len(broke)} recipe applications broke the operator "
            "(left out)."
        )
        for name in sorted({o.recipe for o in slowed}):
            mine = [o for o in slowed if o.recipe == name]
            print(
                f"  {name:<22} {sum(o.hit for o in mine)}/{len(mine)} recovered, "
                f"{sum(o.own for o in mine)}/{len(mine)} by {RECIPES[name][0]}"
            )
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
