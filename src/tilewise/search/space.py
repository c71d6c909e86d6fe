"""The search space: which knobs to tune, over which values, and the checks made before paying for a run.

Domains come, in order of precedence, from the manifest (`[knobs.NAME] domain = [...]`), from an annotation on the
constant's line (`// tilewise: tune NAME in [...]`), or from the knob's role (search/domains.py): core counts over
the chip's range and the counts that split the work evenly, buffer counts 1 to 4, tile lengths and divisors over
every value whose buffers fit the UB. The role is what the code does with the value (analysis/knob_flow.py: what
it feeds, SetBlockDim, an InitBuffer's count or length, a copy's length), the name's guess only where the data
flow reaches none of those. A constant that states a fact (a type size, an alignment, the block or repeat size, a
hardware limit: analysis/knob_facts.py) is no knob. When any knob carries an annotation or a manifest domain, only
those knobs are tuned: the author has said what matters.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

from pydantic import BaseModel

from tilewise.analysis.chip import Chip
from tilewise.analysis.evaluate import Evaluator
from tilewise.analysis.knob_facts import knob_facts
from tilewise.analysis.knob_flow import knob_flows
from tilewise.analysis.knobs import PLATFORM_CORES, PLATFORM_UB
from tilewise.analysis.manifest import Case
from tilewise.analysis.model import Knob
from tilewise.analysis.operator import Operator
from tilewise.analysis.rewrite import apply_edits, knob_edits
from tilewise.device.protocol import Screening
from tilewise.search.domains import Buffers, buffer_domain, core_domain, fit_to_ub, static_length_domain

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
    # The same, per InitBuffer site ("FILE:LINE") the knob sizes: how `fit_domains` scales the buffers it sees.
    ub_sites: dict[str, int] = {}


class SearchSpace(BaseModel):
    knobs: list[KnobSpec]

    def baseline(self) -> Config:
        return {k.name: k.current for k in self.knobs}

    def size(self) -> int:
        return math.prod(len(k.domain) for k in self.knobs) if self.knobs else 0

    def grid(self) -> Iterator[Config]:
        for values in itertools.product(*(k.domain for k in self.knobs)):
            yield dict(zip((k.name for k in self.knobs), values, strict=True))


def platform_figures(chip: Chip) -> dict[str, int]:
    """What the chip itself answers to each platform query: a platform knob's shipped value."""
    return {PLATFORM_CORES: chip.vector_cores, PLATFORM_UB: chip.ub_bytes}


def _domain(knob: Knob, role: str, chip: Chip, work: list[int]) -> list[int] | None:
    """The values a knob is searched over, by its role (search/domains.py); None for a role no search moves."""
    if knob.name == PLATFORM_CORES:
        return core_domain(chip, work, chip.vector_cores)
    if knob.name == PLATFORM_UB:
        # Down to 1/16 of the UB, on 1 KiB steps: a tiling that sizes its tiles from the UB takes smaller ones.
        fractions = (1 / 16, 1 / 8, 1 / 4, 3 / 8, 1 / 2, 3 / 4)
        return sorted({int(chip.ub_bytes * f) // 1024 * 1024 for f in fractions} | {chip.ub_bytes})
    v = knob.value
    if role == "block_dim":
        return core_domain(chip, work, v)
    if role == "buffer_num":
        return buffer_domain(v)
    if role == "cap":
        return sorted({max(1, v // 4), max(1, v // 2), v, 2 * v, 4 * v})
    if role in ("tile", "divisor") and v > 0:
        return static_length_domain(v, role)
    return None


# A tiling function can hold dozens of literals; beyond these the space grows faster than a budget can follow.
MAX_TILING_LITERALS = 6


def build_space(op: Operator, chip: Chip, cases: list[Case] | None = None) -> SearchSpace:
    """The knobs a tune searches, and their domains (see the module). `cases`: the cases tuned (the manifest's
    unless given), whose work sizes the core counts that split it evenly."""
    overrides = op.manifest.knobs if op.manifest else {}
    flows = knob_flows(op.model, op.sources)
    facts = knob_facts(op.model, op.sources)
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
            if literals >= MAX_TILING_LITERALS or k.name in knobs or k.name in facts:
                continue
            literals += 1
        knobs.setdefault(k.name, k)
    explicit = {n for n, k in knobs.items() if k.domain} | {n for n in overrides if n in knobs}
    # each case's work, in elements of its first input (what a split over the cores divides)
    chosen = cases if cases is not None else (op.manifest.cases if op.manifest else [])
    work = [math.prod(next(iter(c.inputs.values())).shape) for c in chosen if c.inputs]
    specs = []
    for name, k in knobs.items():
        o = overrides.get(name)
        flow = flows.get(name)
        # The role is what the value does (analysis/knob_flow.py); the name's guess only where the flow sees no sink.
        role = (flow.role if flow is not None else None) or k.role
        domain: list[int] | None  # None: no domain inferred for this knob
        if o is not None and o.domain:
            domain, source = o.domain, "manifest"
        elif k.domain:
            domain, source = k.domain, "annotation"
        elif explicit or (name in facts and role not in _COUNTS):
            continue  # (a fact of the types or the hardware: analysis/knob_facts.py; a count it feeds is a choice)
        else:
            domain, source = _domain(k, role, chip, work), k.kind if k.kind in _OWN_KINDS else "inferred"
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
                    role=role,
                    context=k.context,
                    ub_effect=flow.ub_effect if flow is not None else 0,
                    ub_sites=_single_signs(flow.ub_sites) if flow is not None else {},
                )
            )
    return SearchSpace(knobs=specs)


_OWN_KINDS = ("platform", "tiling_literal")
_COUNTS = ("block_dim", "buffer_num")


def _single_signs(sites: dict[str, set[int]]) -> dict[str, int]:
    """Each InitBuffer site's sign, 0 where the knob both grows and shrinks it (count and divisor at once)."""
    return {site: signs.pop() if len(signs) == 1 else 0 for site, signs in ((s, set(v)) for s, v in sites.items())}


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


def fit_space(space: SearchSpace, cases: list[Buffers], ub_bytes: int) -> SearchSpace:
    """`space` with each inferred tile length's or divisor's domain narrowed to the values whose buffers fit the UB
    for some setting of the other knobs (domains.fit_to_ub), `cases` holding the shipped configuration's buffers
    on each case. A knob none of whose buffers is known keeps its domain."""
    if not cases:
        return space
    knobs = []
    for k in space.knobs:
        if k.source in ("inferred", "tiling_literal") and k.role in ("tile", "divisor"):
            others = [(j.current, j.domain, j.ub_sites) for j in space.knobs if j.name != k.name]
            fitted = fit_to_ub(k.current, k.ub_sites, others, cases, ub_bytes)
            if fitted is not None and len(fitted) > 1:
                k = k.model_copy(update={"domain": fitted})
        knobs.append(k)
    return SearchSpace(knobs=knobs)


def shipped_buffers(op: Operator, screening: Screening, config: Config) -> dict[str, tuple[int, int]]:
    """Site ("FILE:LINE") -> (buffers, bytes each) of `config` on one case: as its screening made them, else the
    static sizes (`static_buffers`)."""
    seen: dict[str, tuple[int, int]] = {}
    for b in screening.buffers or []:
        num, size = seen.get(f"{b.file}:{b.line}", (0, 0))
        seen[f"{b.file}:{b.line}"] = (num + b.num, max(size, b.len))
    return seen or static_buffers(op, config)


def static_buffers(op: Operator, config: Config) -> dict[str, tuple[int, int]]:
    """Site ("FILE:LINE") -> (buffers, bytes each) of the InitBuffers whose count and length evaluate statically
    under `config` (a length known only at run time leaves its site out)."""
    env = {k.name: config.get(k.name, k.value) for k in op.model.knobs}
    out: dict[str, tuple[int, int]] = {}
    for b in op.model.init_buffers:
        num = _evaluate(op, b.num, env) if b.num.loc else b.num.value
        size = _evaluate(op, b.size, env)
        if num is not None and size is not None and num > 0 and size > 0:
            site = f"{b.loc.file}:{b.loc.line}"
            prev = out.get(site, (0, 0))
            out[site] = (prev[0] + num, max(prev[1], size))
    return out


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
