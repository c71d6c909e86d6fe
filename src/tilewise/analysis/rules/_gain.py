"""Estimated gains for fix titles, from the chip's cost model (`TimingConfig`'s methods, which mirror the emulator's
timing model, tw/timing/model.h).

These are estimates from the model's structure, stated as such; a tune or a run on the emulator measures the real
effect. Where the sizes are unknown statically, the bound comes from how many pipes the fix lets overlap.
"""

from __future__ import annotations

from tilewise.analysis.apis import COPIES, PIPES
from tilewise.analysis.chip import REPEAT_BYTES, Chip, cost_model


def loop_stages(ctx, owner: str | None) -> int:
    """How many pipes work in the tile loops of one kernel class: copy-in (MTE2), vector, copy-out (MTE3).
    A class with copies both ways has two copy stages; the barrier or the single buffer serialises them all."""
    calls = [c for c in ctx.model.calls_in(owner) if c.in_loop]
    copies = [c for c in calls if c.name in COPIES]
    outward = sum(1 for c in copies if c.args and ctx.is_global(c.args[0].text))
    stages = (1 if len(copies) - outward > 0 else 0) + (1 if outward else 0)
    stages += 1 if any(PIPES.get(c.name) == "vector" for c in calls) else 0
    return max(stages, 2)


def dma_efficiency(chip: Chip, nbytes: int) -> float:
    """Share of one core's DMA rate a copy of `nbytes` reaches when the loop waits for it (its latency exposed)."""
    return cost_model(chip).dma_efficiency(nbytes, chip.clock_ghz)


def overlap_text(stages: int) -> str:
    return f"up to {stages}x on the tile loop (estimate, for balanced stages)"


def scalar_loop_gain(chip, global_memory: bool, elem_bytes: int = 2) -> float:
    """Per-element scalar round trips against one vector repeat per 256 bytes, for a long loop."""
    t = cost_model(chip)
    scalar_per_repeat = (REPEAT_BYTES // elem_bytes) * 2 * t.scalar_access_cycles(global_memory)  # a get and a set
    return scalar_per_repeat / (t.vector_cycles(None, elem_bytes, 8) / 8)  # startup amortised over 8 repeats


def double_buffer_gain(ctx, owner: str | None, tile_bytes: int | None, halves: bool) -> str:
    """What a second buffer may give a tile loop, as text: with one buffer the stages run one after another
    (time = their sum), with two they overlap (time = the longest). Balanced stages give `stages`x; when the host
    halves the tile to make room, each copy is half as long and its fixed latency weighs more, which the copy stages
    pay for."""
    stages = loop_stages(ctx, owner)
    if not halves:
        size = f", tiles of {tile_bytes} bytes" if tile_bytes else ""
        return f"up to {stages}x on the tile loop (estimate for balanced stages{size})"
    if not tile_bytes:
        return (
            f"less than {stages}x on the tile loop (estimate: the halved tiles' shorter copies reach less of "
            "the DMA peak)"
        )
    slower = dma_efficiency(ctx.chip, tile_bytes) / dma_efficiency(ctx.chip, max(tile_bytes // 2, 32))
    return (
        f"up to {stages / slower:.1f}x on the tile loop (estimate for balanced stages: tiles halve from "
        f"{tile_bytes} bytes, each copy {slower:.2f}x slower per byte)"
    )


def scalar_loop_trip_gain(chip, global_memory: bool, elem_bytes: int, trips: int) -> float:
    """A loop of `trips` scalar round trips against one vector instruction over the same elements (its startup
    paid once): what vectorising a loop of known length gains."""
    t = cost_model(chip)
    scalar = trips * 2 * t.scalar_access_cycles(global_memory)  # a get and a set per trip
    return scalar / t.vector_cycles(None, elem_bytes, t.vector_repeats(trips, elem_bytes))
