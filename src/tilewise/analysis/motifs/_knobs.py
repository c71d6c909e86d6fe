"""Rewinds that only move a tiling constant: the shared step of double-buffer, large-tiles and all-cores."""

from __future__ import annotations

from collections.abc import Callable

from tilewise.analysis.model import Knob, KnobRole
from tilewise.analysis.motifs.base import MotifContext, Rewound, Site, splice
from tilewise.analysis.rewrite import knob_edit

MAX_LADDER = 4  # values measured per knob site when verifying: enough to find the knee, few enough to be quick


def rewind_knobs(
    ctx: MotifContext, motif: str, role: KnobRole, slower: Callable[[Knob], int | None], side: str | None = None
) -> list[Rewound]:
    """One rewind per knob of `role` (on `side` when given) that `slower` moves: the literal rewritten to the slow
    value. A knob marked `// tilewise: tuned` is a measured choice and is rewound like any other."""
    out: list[Rewound] = []
    seen: set[str] = set()
    for knob in ctx.model.knobs:
        if knob.role != role or (side is not None and knob.side != side) or knob.name in seen:
            continue
        value = slower(knob)
        sf = ctx.sources.get(knob.file)
        if value is None or value == knob.value or sf is None:
            continue
        seen.add(knob.name)
        text = splice(sf, knob.literal.start, knob.literal.end, str(value))
        out.append(Rewound(motif, f"{knob.name} {knob.value} -> {value}", {knob.file: text}, knob.file, knob.line))
    return out


def with_ladder(ctx: MotifContext, sites: list[Site]) -> list[Site]:
    """Each site whose edit rewrites a knob's literal to a larger value gets the values in between as alternatives
    (from the knob's domain, else doublings), up to MAX_LADDER spaced evenly: more cores or a larger tile is not
    better without limit (launch cost, UB room), so verification measures a few and keeps the best."""
    by_literal = {(k.file, k.literal.start): k for k in ctx.model.knobs}
    for site in sites:
        edit = site.edits[0] if site.edits and len(site.edits) == 1 else None
        knob = by_literal.get((edit.file, edit.start)) if edit is not None else None
        if edit is None or knob is None or not edit.new_text.strip().isdigit():
            continue
        target = int(edit.new_text.strip())
        if knob.domain:
            between = [v for v in sorted(set(knob.domain)) if knob.value < v < target]
        else:
            between, v = [], knob.value * 2
            while v < target:
                between.append(v)
                v *= 2
        if len(between) > MAX_LADDER - 1:
            step = len(between) / (MAX_LADDER - 1)
            between = [between[int(i * step)] for i in range(MAX_LADDER - 1)]
        site.alternatives = [(f"{knob.name} = {v}", [knob_edit(knob, v)]) for v in between]
    return sites
