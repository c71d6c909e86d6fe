"""The search space: which knobs to tune, over which values, and the checks made before paying for a run.

Domains come, in order of precedence, from the manifest (`[knobs.NAME] domain = [...]`), from an annotation on the
constant's line (`// tilewise: tune NAME in [...]`), or are inferred from the knob's role: blockDim up to the chip's
core count, buffer counts 1 to 3, tile sizes as powers of two around the current value. When any knob carries an
annotation or a manifest domain, only those knobs are tuned: the author has said what matters.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

from pydantic import BaseModel

from tilewise.analysis.chip import Chip
from tilewise.analysis.evaluate import Evaluator
from tilewise.analysis.knobs import PLATFORM_CORES, PLATFORM_UB
from tilewise.analysis.model import Knob
from tilewise.analysis.operator import Operator
from tilewise.analysis.rewrite import apply_edits, knob_edits

Config = dict[str, int]


class KnobSpec(BaseModel):
    name: str
    file: str
    line: int
    current: int
    domain: list[int]
    source: str  # manifest | annotation | inferred | platform | tiling_literal
    role: str = "other"
    context: str = ""  # for a knob inside the tiling function: the statement it stands in
    # How the Unified Buffer the kernel asks for moves as this knob grows, read from the data flow: +1 it grows (a
    # tile length, a buffer count), -1 it shrinks (a divisor of the tiles, a core count the work is split over),
    # 0 unknown or neither (BUFFER_NUM buffers of a tile it also divides). A strategy that learns from an overflow
    # extends it only along the knobs whose effect is known.
    ub_effect: int = 0


class SearchSpace(BaseModel):
    knobs: list[KnobSpec]

    def baseline(self) -> Config:
        return {k.name: k.current for k in self.knobs}

    def size(self) -> int:
        return math.prod(len(k.domain) for k in self.knobs) if self.knobs else 0

    def grid(self) -> Iterator[Config]:
        for values in itertools.product(*(k.domain for k in self.knobs)):
            yield dict(zip((k.name for k in self.knobs), values, strict=True))


def _inferred_domain(knob: Knob, chip: Chip) -> list[int] | None:
    if knob.role == "block_dim":
        steps = [1, 2, 4, 8, 16, 24, 32, 40, 48, 64]
        return sorted({v for v in steps if v <= chip.vector_cores} | {chip.vector_cores, knob.value})
    if knob.role == "buffer_num":
        return sorted({1, 2, 3, knob.value})
    if knob.role == "tile" and knob.value > 0:
        return sorted({max(1, int(knob.value * 2.0**k)) for k in range(-3, 4)})
    return None


def platform_figures(chip: Chip) -> dict[str, int]:
    """What the chip itself answers to each platform query: a platform knob's shipped value."""
    return {PLATFORM_CORES: chip.vector_cores, PLATFORM_UB: chip.ub_bytes}


def _tiling_knob_domain(knob: Knob, chip: Chip, work: list[int] | None = None) -> tuple[int, list[int]]:
    """(current value, domain) of a knob inside the tiling function. `work`: each case's element count, whose
    common divisors join the core counts (a split into equal shares keeps every core's copies the same size)."""
    if knob.name == PLATFORM_CORES:
        cores = chip.vector_cores
        even = {d for d in range(2, cores) if work and all(n % d == 0 for n in work)}
        return cores, sorted({v for v in _CORE_STEPS if v < cores} | even | {cores})
    if knob.name == PLATFORM_UB:
        # Down to 1/16 of the UB, on 1 KiB steps: a tiling that sizes its tiles from the UB takes smaller ones.
        fractions = (1 / 16, 1 / 8, 1 / 4, 3 / 8, 1 / 2, 3 / 4)
        return chip.ub_bytes, sorted({int(chip.ub_bytes * f) // 1024 * 1024 for f in fractions} | {chip.ub_bytes})
    v = knob.value
    if knob.role == "block_dim":
        return v, sorted({s for s in _CORE_STEPS if s <= chip.vector_cores} | {chip.vector_cores, v})
    if knob.role == "buffer_num":
        return v, sorted({1, 2, 3, v})
    if knob.role == "cap":
        return v, sorted({max(1, v // 4), max(1, v // 2), v, 2 * v, 4 * v})
    # A divisor or multiplier: its neighbours, halves and doubles (1 included: `/ 2` -> `/ 1` is a real choice).
    return v, sorted({max(1, v // 4), max(1, v // 2), max(1, v - 1), v, v + 1, v * 3 // 2, 2 * v})


_CORE_STEPS = (1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 64)
# A tiling function can hold dozens of literals; beyond these the space grows faster than a budget can follow.
MAX_TILING_LITERALS = 6


def build_space(op: Operator, chip: Chip) -> SearchSpace:
    overrides = op.manifest.knobs if op.manifest else {}
    # One knob per name: a constant defined in both the host and the kernel is the same decision.
    knobs: dict[str, Knob] = {}
    values: dict[str, set[int]] = {}
    for k in op.model.knobs:
        if k.kind in ("set_block_dim", "launch"):
            continue
        knobs.setdefault(k.name, k)
        values.setdefault(k.name, set()).add(k.value)
    # ... unless the two disagree (a host BUFFER_NUM of 6 sizing tiles for a kernel BUFFER_NUM of 2): one value
    # would rewrite the other's literal, and the shipped configuration would not be the one that ships.
    for name, seen in values.items():
        if len(seen) > 1:
            del knobs[name]
    literals = 0
    for k in op.model.tiling_knobs:  # platform queries first, then literals in source order
        if k.kind == "tiling_literal":
            if literals >= MAX_TILING_LITERALS or k.name in knobs:
                continue
            literals += 1
        knobs.setdefault(k.name, k)
    explicit = {n for n, k in knobs.items() if k.domain} | {n for n in overrides if n in knobs}
    # each case's work, in elements of its first input (what a split over the cores divides)
    work = (
        [math.prod(next(iter(c.inputs.values())).shape) for c in op.manifest.cases if c.inputs] if op.manifest else []
    )
    specs = []
    for name, k in knobs.items():
        o = overrides.get(name)
        domain: list[int] | None  # None: no domain inferred for this knob
        if o is not None and o.domain:
            domain, source = o.domain, "manifest"
        elif k.domain:
            domain, source = k.domain, "annotation"
        elif explicit:
            continue
        elif k.kind in ("platform", "tiling_literal"):
            domain, source = _tiling_knob_domain(k, chip, work)[1], k.kind
        else:
            domain, source = _inferred_domain(k, chip), "inferred"
        if not domain:
            continue
        default = platform_figures(chip)[k.name] if k.kind == "platform" else k.value
        current = o.value if o is not None and o.value is not None else default
        domain = sorted(set(domain) | {current})
        if len(domain) > 1:
            specs.append(
                KnobSpec(
                    name=name,
                    file=k.file,
                    line=k.line,
                    current=current,
                    domain=domain,
                    source=source,
                    role=k.role,
                    context=k.context,
                )
            )
    return SearchSpace(knobs=specs)


def config_texts(op: Operator, config: Config) -> dict[str, str]:
    """The operator's sources with the knobs' literals rewritten (only the files that change)."""
    by_file: dict[str, list] = {}
    for e in knob_edits(op.model, config):
        by_file.setdefault(e.file, []).append(e)
    return {path: apply_edits(op.sources[path].text, edits) for path, edits in by_file.items()}


def violations(op: Operator, config: Config, chip: Chip) -> list[str]:
    """Reasons a configuration cannot work, found without running it (empty when none is known)."""
    reasons = []
    for name, value in config.items():
        if value < 1:
            reasons.append(f"{name} = {value} is not positive")
    env = {k.name: config.get(k.name, k.value) for k in op.model.knobs}
    # Buffers whose size is known only at run time are left out: what remains is a lower bound on UB use.
    by_owner: dict[str | None, int] = {}
    for b in op.model.init_buffers:
        total = _evaluate(op, b.num, env) if b.num.loc else b.num.value
        size = _evaluate(op, b.size, env)
        if total is not None and size is not None:
            by_owner[b.owner] = by_owner.get(b.owner, 0) + total * ((size + 31) // 32 * 32)
    for owner, total in by_owner.items():
        if total > chip.ub_bytes:
            who = owner or "the kernel"
            reasons.append(f"UB: {who} would allocate {total} bytes, over the {chip.ub_bytes} available")
    return reasons


def _evaluate(op: Operator, expr, env: dict[str, int]) -> int | None:
    if expr.loc is None or expr.loc.file not in op.sources:
        return expr.value
    sf = op.sources[expr.loc.file]
    node = sf.tree.root_node.descendant_for_byte_range(expr.loc.start, expr.loc.end)
    if node is None:
        return None
    return Evaluator(sf.node_text, env).value(node)


def unreachable(op: Operator, space: SearchSpace) -> list[str]:
    """The tiling decisions no knob of `space` reaches, said plainly: a tuned result is the best of what knobs can
    do, and these are where a rewrite of the tiling function (not a search) would have to go."""
    notes = []
    keys = {e.text for tf in op.model.tiling.functions for e in tf.tiling_keys}
    if keys:
        notes.append(
            f"the tiling key ({', '.join(sorted(keys))[:100]}) picks the kernel's variant by the tiling function's "
            "own logic; no knob chooses another variant"
        )
    if not space.knobs:
        notes.append(
            "no named constant, platform query or literal of the tiling function decides this tiling: another split "
            "of the work needs the tiling function rewritten"
        )
    else:
        notes.append(
            "how the work is split (which dimension the cores share, what one tile holds) is the tiling function's "
            "code: knobs move its numbers, not its shape"
        )
    return notes
