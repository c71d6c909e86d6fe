"""Knobs that change nothing the kernel sees, found before the search spends its budget on them.

A real tiling function is full of literals and platform queries, and on a given set of cases many of them do not
matter: `NUM = 3` in the fp16 branch when every case is fp32, a UB query on shapes far smaller than any UB, a core
count on inputs one core handles. Each such knob multiplies the space without moving the optimum. So before the
search, each knob the tiling function itself holds (a platform query or a literal; named constants may reach the
kernel directly and are kept) is screened at the two ends of its domain on every case. When every screening hands
the kernel the same tiling as the shipped configuration (the same tiling bytes, blockDim and tiling key), the knob
is inert on these cases and leaves the space. A device whose screening cannot fingerprint the tiling keeps them all.
"""

from __future__ import annotations

from collections.abc import Callable

from tilewise.analysis.manifest import Case
from tilewise.device.protocol import Screening
from tilewise.search.space import Config, KnobSpec, SearchSpace

Screen = Callable[[Config, Case], Screening]
_PRUNABLE = ("platform", "tiling_literal")


def _tiling(s: Screening) -> tuple[str | None, int | None, int | None] | None:
    """What a screening says the kernel is handed; None when it failed or cannot tell."""
    if not s.ok or s.tiling_digest is None:
        return None
    return (s.tiling_digest, s.block_dim, s.tiling_key)


def inert_knobs(space: SearchSpace, cases: list[Case], screen: Screen) -> list[KnobSpec]:
    """The knobs of `space` whose every tried value gives every case the shipped tiling (see the module)."""
    baseline = space.baseline()
    shipped = {case.name: _tiling(screen(baseline, case)) for case in cases}
    if any(t is None for t in shipped.values()):
        return []  # the shipped tiling itself cannot be fingerprinted: nothing to compare with
    inert = []
    for knob in space.knobs:
        if knob.source not in _PRUNABLE:
            continue
        ends = sorted({knob.domain[0], knob.domain[-1]} - {knob.current})
        if all(
            _tiling(screen({**baseline, knob.name: value}, case)) == shipped[case.name]
            for value in ends
            for case in cases
        ):
            inert.append(knob)
    return inert


def without(space: SearchSpace, knobs: list[KnobSpec]) -> SearchSpace:
    names = {k.name for k in knobs}
    return SearchSpace(knobs=[k for k in space.knobs if k.name not in names])
