"""Optimisation motifs: each one an expert's change, written as a rewind (take it out of a fast kernel, for
mining the bank) and a detector (find where a kernel lacks it, with the edits when they are deterministic).

One module per motif, each with what/why/example in its docstring; `MOTIFS` is the registry, in the order the
bank lists them. `analysis/motifs/base.py` says what a motif is.
"""

from __future__ import annotations

from tilewise.analysis.motifs import (
    aligned_copy,
    all_cores,
    cast_round_trip,
    double_buffer,
    fused_call,
    hoist_invariant,
    large_tiles,
    merged_copy,
    pipe_sync,
    ub_resident,
    vector_not_scalar,
    whole_reduce,
)
from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, Site

_MODULES = [
    double_buffer,
    pipe_sync,
    large_tiles,
    all_cores,
    aligned_copy,
    vector_not_scalar,
    hoist_invariant,
    cast_round_trip,
    fused_call,
    ub_resident,
    merged_copy,
    whole_reduce,
]

MOTIFS: dict[str, Motif] = {m.MOTIF.id: m.MOTIF for m in _MODULES}

__all__ = ["MOTIFS", "Motif", "MotifContext", "Rewound", "Site"]
