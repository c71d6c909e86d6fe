"""LLM-guided evolution of the host tiling function, for tilings that no knob can express.

The tuner searches the values of a tiling's constants. When the better tiling needs other arithmetic (split the
rows rather than the columns, give the tail its own tile, pick the tile from the UB size), only a rewrite of the
tiling function reaches it. The region a model may rewrite is what lies between `// tilewise: evolve-begin` and
`// tilewise: evolve-end` markers in the host sources, or, with no markers, each tiling function whole.

The search is an evolutionary loop with the device as the fitness function: a population of variants (the shipped
region first) ranked by their measured time; each generation the model sees the best variants with their times
and writes one child from the best (SEARCH/REPLACE inside the region), which is built, run on every case and
checked against the golden like any rewrite (search/verify_fix.py). A correct child joins the population, which
keeps its POPULATION fastest. The result is the fastest correct variant, if it beats the shipped tiling.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass

from tilewise.analysis.findings import Fix
from tilewise.analysis.manifest import Case
from tilewise.analysis.operator import Operator
from tilewise.device.protocol import Device
from tilewise.search.llm.blocks import AnswerError, parse_blocks, to_edits
from tilewise.search.llm.client import LlmClient, LlmError
from tilewise.search.llm.prompt import profile_text, sources_text
from tilewise.search.llm.rewrite import profile_runs
from tilewise.search.verify_fix import verify_fix

BEGIN = re.compile(r"//\s*tilewise:\s*evolve-begin")
END = re.compile(r"//\s*tilewise:\s*evolve-end")
POPULATION = 4
ASKS_PER_CANDIDATE = 2  # completions allowed per candidate of the budget (answers that do not apply cost no run)

EVOLVE_RULES = """\
You improve the host-side tiling function of an AscendC operator (Huawei Ascend NPU). The tiling function decides \
blockDim (how many AI cores run the kernel) and the tile sizes and counts the kernel reads from the tiling data. \
Faster tilings use every core, move large tiles (tens of KB per DataCopy), keep each DataCopy a multiple of 32 \
bytes, and keep every buffer the kernel allocates within the Unified Buffer. The kernel must still compute the \
same result for every shape.

Answer with exactly one SEARCH/REPLACE block (a path line relative to the operator's folder, `<<<<<<< SEARCH`, the \
exact old lines, `=======`, the new lines, `>>>>>>> REPLACE`) that changes only lines inside the region shown. \
Explain the idea in one sentence before it."""


@dataclass
class Region:
    file: str
    start: int  # character offsets of the region's text in the file
    end: int

    def text(self, texts: dict[str, str]) -> str:
        return texts[self.file][self.start : self.end]


@dataclass
class Variant:
    texts: dict[str, str]  # the region's files, whole
    time_us: float
    idea: str


@dataclass
class Evolved:
    texts: dict[str, str] | None  # the fastest variant's changed files, None when none beat the shipped tiling
    reason: str
    time_us: float | None = None
    candidates: int = 0


def regions(op: Operator) -> list[Region]:
    """The marked regions of the host sources, or each tiling function whole when nothing is marked."""
    found: list[Region] = []
    for path in op.model.host_files:
        sf = op.sources.get(path)
        if sf is None:
            continue
        text = sf.text
        for b in BEGIN.finditer(text):
            e = END.search(text, b.end())
            if e is not None:
                start = text.find("\n", b.end()) + 1
                found.append(Region(path, start, text.rfind("\n", 0, e.start()) + 1))
    if found:
        return found
    for tf in op.model.tiling.functions:
        sf = op.sources.get(tf.loc.file)
        if sf is None:
            continue
        data = sf.text.encode("utf-8")
        start = len(data[: tf.loc.start].decode("utf-8", "replace"))
        end = len(data[: tf.loc.end].decode("utf-8", "replace"))
        if end > start:
            found.append(Region(tf.loc.file, start, end))
    return found


def evolve_tiling(
    op: Operator,
    device: Device,
    cases: list[Case],
    llm: LlmClient,
    *,
    budget: int,
    seed: int = 0,
    golden: str | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Evolved:
    """Evolve the tiling regions of `op` for at most `budget` measured candidates (see the module's docstring)."""
    areas = regions(op)
    if not areas:
        return Evolved(None, "no tiling function or evolve-begin/evolve-end region in the host sources")
    runs, failing = profile_runs(op, device, cases, seed, golden)
    if failing:
        return Evolved(None, failing)
    shipped = {p: op.sources[p].text for p in {a.file for a in areas}}
    population = [Variant(shipped, sum(m.time_us or 0.0 for _, m in runs), "the shipped tiling")]
    root = str(op.project.root)
    measured, asked, last = 0, 0, "no candidate was measured"
    while measured < budget and asked < ASKS_PER_CANDIDATE * budget and not (cancelled and cancelled()):
        parent = population[0]
        asked += 1
        try:
            answer = llm.complete(_messages(op, areas, population, runs, root))
        except LlmError as exc:
            last = f"the model could not be asked: {exc}"
            break
        child, why = _child(op, areas, parent, answer.text, root)
        if child is None:
            last = why
            continue
        measured += 1
        # (the child's edits are over the parent's texts, which are also the run it is compared with)
        verdict = verify_fix(
            op, Fix(title="evolved tiling", edits=child), device, cases, seed=seed, golden=golden, texts=parent.texts
        )
        times = [c.after_us for c in verdict.cases]
        if not verdict.correct or any(t is None for t in times):
            last = f"a candidate was refused: {verdict.message()}"
            continue
        texts = {**parent.texts, **{e.file: e.new_text for e in child}}
        population.append(Variant(texts, sum(t or 0.0 for t in times), _idea(answer.text)))
        population.sort(key=lambda v: v.time_us)
        del population[POPULATION:]
    best = population[0]
    if best.texts is shipped:
        return Evolved(None, f"no variant beat the shipped tiling ({measured} measured; {last})", candidates=measured)
    changed = {p: t for p, t in best.texts.items() if t != shipped[p]}
    return Evolved(changed, f"{best.idea} ({measured} measured)", best.time_us, measured)


def _child(op: Operator, areas: list[Region], parent: Variant, answer: str, root: str):
    """The answer's edits applied to the parent, when they apply and stay inside the regions; else (None, why)."""
    try:
        blocks = parse_blocks(answer)
    except AnswerError as exc:
        return None, str(exc)
    if not blocks:
        return None, "an answer had no SEARCH/REPLACE block"
    editable = set(parent.texts)
    edits, problems = to_edits(blocks, parent.texts, root, editable)
    if problems:
        return None, problems[0].reason
    for e in edits:
        if not _inside(areas, parent.texts[e.file], e.new_text, e.file):
            return None, f"an answer changed {os.path.relpath(e.file, root)} outside the tiling region"
    if not edits:
        return None, "an answer changed nothing"
    return edits, ""


def _inside(areas: list[Region], old: str, new: str, path: str) -> bool:
    """Whether `new` differs from `old` only inside the file's regions (what precedes the first and follows the
    last is unchanged)."""
    mine = [a for a in areas if a.file == path]
    if not mine:
        return False
    head, tail = min(a.start for a in mine), max(a.end for a in mine)
    return new.startswith(old[:head]) and new.endswith(old[tail:]) and len(new) >= head + len(old) - tail


def _idea(answer: str) -> str:
    first = next((line.strip() for line in answer.splitlines() if line.strip() and not line.startswith(("`", "<"))), "")
    return first[:160] or "an evolved tiling"


def _messages(op: Operator, areas: list[Region], population: list[Variant], runs, root: str) -> list[dict[str, str]]:
    parent = population[0]
    shown = []
    for i, v in enumerate(population):
        region = "\n".join(a.text(v.texts) for a in areas if a.file in v.texts)
        shown.append(f"## Variant {i + 1}: {v.time_us:.2f} us in total ({v.idea})\n```cpp\n{region}```")
    kernel = {p: op.sources[p].text for p in op.model.kernel_files if p in op.sources}
    parts = [
        f"# Task\n\nWrite a faster tiling for `{op.model.operator}`, starting from variant 1 (the fastest so far).",
        "# Variants measured on the device (time summed over the cases)\n\n" + "\n\n".join(shown),
        f"# How the shipped tiling runs\n\n{profile_text(runs, None)}",
        f"# The host sources as in variant 1 (edit only inside the region)\n\n{sources_text(parent.texts, root)}",
        f"# The kernel (read-only, for what the tiling data means)\n\n{sources_text(kernel, root)}",
    ]
    return [{"role": "system", "content": EVOLVE_RULES}, {"role": "user", "content": "\n\n".join(parts)}]
