"""all-cores: the launch uses every AI core the chip has (the work split over blockDim = the core count).

Rewind: the block-count constant (a knob of role block_dim) drops to an eighth; a tiling that asks the platform
for the core count instead gets that answer capped right after the query. Detect: the low-block-dim lint rule,
whose fix raises the constant where the kernel's GetBlockIdx() split stays aligned.

Example (slow -> fast): `constexpr uint32_t BLOCK_DIM = 8;` -> `constexpr uint32_t BLOCK_DIM = 48;`
"""

from __future__ import annotations

from tilewise.analysis.motifs._knobs import rewind_knobs, with_ladder
from tilewise.analysis.motifs.base import Motif, MotifContext, Rewound, Site, indent_at, line_end, splice
from tilewise.analysis.treeutil import enclosing_statement

_FEW = 8


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
        return with_ladder(ctx, super().detect(ctx))


MOTIF = AllCores(
    id="all-cores",
    title="Use every AI core",
    removes="a launch on a fraction of the chip's cores",
    kinds=("core-count",),
    rule="low-block-dim",
)
