"""all-cores: the launch uses every AI core the chip has (the work split over blockDim = the core count).

Rewind: the block-count constant (a knob of role block_dim) drops to an eighth; a tiling that asks the platform
for the core count instead gets that answer capped right after the query. Detect: the low-block-dim lint rule,
whose fix raises the constant where the kernel's GetBlockIdx() split stays aligned. Where the rule has nothing to
say (the count is a local, a member, a min() with a literal: no named constant), the profile decides: the run
launched fewer blocks than the chip has vector cores while the kernel splits its work by GetBlockIdx(), and the
literals the data flow shows SetBlockDim's count is made of (analysis/motifs/_literals.py), one equal to or above
the blocks launched, are set to the chip's cores (and a few counts between, measured).

Example (slow -> fast): `constexpr uint32_t BLOCK_DIM = 8;` -> `constexpr uint32_t BLOCK_DIM = 48;`
"""

from __future__ import annotations

from tilewise.analysis.findings import TextEdit
from tilewise.analysis.motifs._knobs import rewind_knobs, with_ladder
from tilewise.analysis.motifs._literals import CORES, sources_of
from tilewise.analysis.motifs._profiled import largest_run, literal_edit, movable, one_site
from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, Site, indent_at, line_end, splice
from tilewise.analysis.treeutil import enclosing_statement

_FEW = 8
SPREAD_BYTES = 64 * 1024  # bytes a core copies from which a launch on more cores is plainly worth its cost


class AllCores(Motif):
    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        out = rewind_knobs(ctx, self.id, "block_dim", lambda k: max(1, k.value // _FEW) if k.value > 1 else None)
        if out:
            return out
        few = max(1, ctx.chip.vector_cores // _FEW)
        for k in ctx.model.tiling_knobs:  # `coreNum = GetCoreNumAiv();` -> capped on the next line
            sf = ctx.sources.get(k.file)
            if k.kind != "platform" or k.name != "platform.cores" or not k.target or sf is None:
                continue
            node = sf.tree.root_node.descendant_for_byte_range(k.literal.start, k.literal.end)
            stmt = enclosing_statement(node) if node is not None else None
            if stmt is None:
                continue
            at = line_end(sf, stmt.end_byte)
            indent = indent_at(sf, stmt.start_byte)
            cap = f"{indent}{k.target} = {k.target} < {few} ? {k.target} : {few};\n"
            text = splice(sf, at, at, cap)
            out.append(Rewound(self.id, f"{k.target} capped at {few} cores", {k.file: text}, k.file, k.line))
            break
        return out

    def detect(self, ctx: MotifContext) -> list[Site]:
        sites = with_ladder(ctx, super().detect(ctx))
        return sites or self._from_profile(ctx)

    def _from_profile(self, ctx: MotifContext) -> list[Site]:
        run = largest_run(ctx)
        cores = ctx.chip.vector_cores
        if run is None or not run.block_dim or run.block_dim >= cores:
            return []
        if not any("GetBlockIdx" in ctx.sources[p].text for p in ctx.kernel_files):
            return []  # the kernel does not split its work by block: more blocks would repeat it
        dim = run.block_dim
        movable_now = movable(ctx, sources_of(ctx.model, ctx.sources, CORES, flow=ctx.rules.flow))
        found = [s for s, sign in movable_now if sign > 0 and not s.shift and dim <= s.value < cores]
        found = [s for s in found if s.value > 1 or dim == 1]
        found.sort(key=lambda s: (s.value != dim, s.file, s.start))  # the literal the launch shows first
        ranked: list[tuple[int, str, list[TextEdit]]] = []
        for s in found[:2]:
            for v in _counts(s.value, cores):
                label = f"the literal {s.value} at line {s.line} set to {v}"
                ranked.append((0 if v == cores else 1, label, [literal_edit(ctx, s, v)]))
        # a divisor or a right shift of the chip's count (`coreNum / 6`, `coreNum >> 2`) that the launch shows
        for s, sign in movable_now:
            if sign < 0 and s.value >= 1 and (cores >> s.value if s.shift else cores // s.value) == dim:
                whole = 0 if s.shift else 1  # the value that takes the whole chip
                for v in (whole, whole + 1, whole + 2) if s.shift else (1, 2, 4):
                    if v < s.value:
                        label = f"the literal {s.value} at line {s.line} set to {v}"
                        ranked.append((0 if v == whole else 1, label, [literal_edit(ctx, s, v)]))
        ranked.sort(key=lambda t: t[0])
        tries = [(label, edits) for _, label, edits in ranked]
        why = (
            f"the run launched {dim} block(s) on a chip with {cores} vector cores, and the kernel splits its work by "
            "GetBlockIdx(): the blocks' count is made of the literal(s) this rewrite raises."
        )
        # The work a block copied in, spread over the whole chip: when each core would still move SPREAD_BYTES or
        # more, more cores pay for their launch; with less, whether they pay is a guess ranked after proved motifs.
        moved = sum(n * run.site_calls.get(site, 1) for site, n in run.copy_bytes.items())
        sure = not run.copy_bytes or moved * dim >= SPREAD_BYTES * cores
        return one_site(self.id, ctx, tries, why, weight=1.0 if sure else 0.5)


def _counts(now: int, cores: int) -> list[int]:
    """The counts to measure above `now`: the chip's cores first, then halves of it, then doublings of `now`."""
    ladder = [cores, cores // 2, cores // 4, now * 4, now * 2]
    return [v for v in dict.fromkeys(ladder) if now < v <= cores]


MOTIF = AllCores(
    id="all-cores",
    title="Use every AI core",
    removes="a launch on a fraction of the chip's cores",
    kinds=("core-count",),
    rule="low-block-dim",
)
