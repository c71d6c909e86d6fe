"""The kernel reads tiling fields the struct lacks (does not compile), or the struct carries fields nobody reads."""

from __future__ import annotations

from analysis.findings import Fix
from analysis.rules.base import Rule, RuleContext, edit_range, indent_of


class TilingFieldMismatch(Rule):
    id = "tiling-field-mismatch"
    severity = "error"
    summary = "tiling fields read by the kernel but missing from the tiling struct, or the reverse"

    def check(self, ctx: RuleContext):
        model = ctx.model
        if not model.tiling.struct or not model.tiling_data_uses:
            return
        fields = {f.name for f in model.tiling.fields}
        nested = {f.name for s in model.tiling.structs for f in s.fields}
        read = {r.field for r in model.tiling_reads}
        reported: set[str] = set()
        for r in model.tiling_reads:
            if r.field in fields or r.field in nested or r.field in reported:
                continue
            reported.add(r.field)
            yield self.finding(r.loc, (
                f"the kernel reads '{r.field}' but tiling struct {model.tiling.struct} has no such field; add "
                f"TILING_DATA_FIELD_DEF(uint32_t, {r.field}); to it and set it in the tiling function."),
                self._add_field(ctx, r.field))
        for tf in model.tiling.functions:
            for s in tf.setters:
                if s.field not in fields and s.field not in nested and s.field not in reported:
                    reported.add(s.field)
                    yield self.finding(s.loc, (
                        f"the tiling function calls set_{s.field}() but {model.tiling.struct} has no field "
                        f"'{s.field}'; declare it with TILING_DATA_FIELD_DEF."), self._add_field(ctx, s.field))
        for f in model.tiling.fields:
            if f.name not in read and f.struct_type is None:
                yield self.finding(f.loc, (
                    f"tiling field '{f.name}' is never read by the kernel: the host computes and ships it for "
                    "nothing. Remove it, or read it where it was meant to be used."), severity="info")

    def _add_field(self, ctx: RuleContext, name: str) -> list[Fix]:
        struct = next((s for s in ctx.model.tiling.structs if s.name == ctx.model.tiling.struct), None)
        if struct is None or struct.loc.file not in ctx.sources:
            return []
        sf = ctx.sources[struct.loc.file]
        end = next((m for m in sf.pre.marks if m.kind == "tiling_end" and m.start > struct.loc.start), None)
        if end is None:
            return []
        line_start = sf.data.rfind(b"\n", 0, end.start) + 1
        indent = indent_of(sf, struct.fields[-1].loc.start) if struct.fields else "    "
        text = f"{indent}TILING_DATA_FIELD_DEF(uint32_t, {name});\n"
        return [Fix(title=f"Add field '{name}' to {struct.name}", edits=[edit_range(sf, line_start, line_start, text)])]
