"""Optimisation motifs: each one an expert's change, written as a rewind (take it out of a fast kernel, for
mining the bank) and a detector (find where a kernel lacks it, with the edits when they are deterministic).

One module per motif, each with what/why/example in its docstring; `MOTIFS` is the registry, in the order the
bank lists them. `analysis/motifs/base.py` says what a motif is.
"""

from __future__ import annotations

from analysis.motifs import all_cores, double_buffer, large_tiles, pipe_sync
from analysis.motifs.base import Motif, MotifContext, Rewound, Site

_MODULES = [double_buffer, pipe_sync, large_tiles, all_cores]

MOTIFS: dict[str, Motif] = {m.MOTIF.id: m.MOTIF for m in _MODULES}

__all__ = ["MOTIFS", "Motif", "MotifContext", "Rewound", "Site"]
