"""Rewinds that only move a tiling constant: the shared step of double-buffer, large-tiles and all-cores."""

from __future__ import annotations

from collections.abc import Callable

from analysis.model import Knob, KnobRole
from analysis.motifs.base import MotifContext, Rewound, splice


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
