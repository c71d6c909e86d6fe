"""Copies far below 16 KB because a tile-length constant is small: DMA runs at a fraction of its bandwidth.

The premise is proved, not read from a name: the constant must decide the copy's length by value (it is the
length, or a factor or bound of it, through every assignment, member and tiling field on the way; see
`_valueflow`). Constants that only divide, index or select are not lengths. Element and byte sizes (`BYTE_LEN_4 = 4`
is `sizeof(float)`) and constants that a data-type dispatch picks or compares against are never tile lengths:
changing them changes what the kernel means. The enlarging fix is offered as safe only when every buffer of the
kernel class still fits in the UB at the new value and no use of the constant other than arithmetic would change.
"""

from __future__ import annotations

import re

from tilewise.analysis.findings import Fix, edit
from tilewise.analysis.rules._build_scope import outside_build
from tilewise.analysis.rules._gain import dma_efficiency
from tilewise.analysis.rules._params import param_items
from tilewise.analysis.rules._valueflow import CAP, VALUE, divides_extent, knob_uses, resolved_value, value_flow
from tilewise.analysis.rules.base import GOOD_COPY_BYTES, Rule, RuleContext

SMALL_BYTES = 4 * 1024  # "well under" 16 KB: a quarter of it
_LENGTH_NAME = re.compile(r"LEN|SIZE|ELEM|CHUNK|COL_TILE|TILE_COLS", re.I)
_COUNT_NAME = re.compile(r"NUM|COUNT|CNT", re.I)
_SIZE_NAME = re.compile(r"BYTE|SIZEOF|DTYPE|TYPE|BIT|ALIGN|BLOCK_SIZE|BLK_SIZE", re.I)
_ELEMENT_SIZES = (1, 2, 4, 8)
# Uses that make the constant more than a length: a dispatch value, a type parameter, a mask, another constant.
_MEANINGFUL_USES = ("compare", "template", "dtype", "bits", "array", "define")


class SmallCopy(Rule):
    id = "small-copy"
    severity = "warning"
    summary = "copies well under 16 KB because the tile constant is small"

    def check(self, ctx: RuleContext):
        if not any(_reportable(k) and 0 < k.value < SMALL_BYTES for k in ctx.model.knobs):
            return  # no tile knob is small even for 1-byte elements: no need to slice thousands of copies
        flow = value_flow(ctx)
        reported: set[str] = set()
        seen: set[tuple[str, str, int]] = set()  # a kernel copies the same `tileLength` hundreds of times
        uses_cache: dict[str, dict] = {}
        outside = outside_build(ctx)
        for call in ctx.model.calls("DataCopy", "DataCopyPad"):
            if not call.in_loop or len(call.args) < 3 or call.loc.file in outside:
                continue  # (a copy in a file the build for this chip never compiles never runs)
            elem = ctx.elem_size(call, call.args[0].text) or ctx.elem_size(call, call.args[1].text) or 2
            found = ctx.node(call.loc)
            if found is None:
                continue
            sf, node = found
            length, unit, count = _length(ctx, sf, node, call.name)
            if length is None:
                continue
            if count is not None and resolved_value(ctx, sf, count, kernel=True) != 1:
                continue  # several blocks per copy: its size is blockCount x blockLen, not the block length
            key = (call.name, sf.node_text(length), elem)
            if key in seen:
                continue
            seen.add(key)
            sources = flow.sources(sf, length, kernel=True)
            for knob in ctx.model.knobs:
                if knob.name not in sources or knob.name in reported or not _reportable(knob):
                    continue
                if not sources[knob.name] & {VALUE, CAP}:
                    continue  # only ever subtracted (a reserve taken off the UB size): raising it shrinks the copy
                if knob.value in _ELEMENT_SIZES or _SIZE_NAME.search(knob.name) or knob.value * elem >= SMALL_BYTES:
                    continue  # an element/byte size or an alignment unit scales a length; it is not one
                uses = uses_cache.get(knob.name)
                if uses is None:
                    uses = uses_cache[knob.name] = knob_uses(ctx, knob)
                if uses.get("compare") or uses.get("dtype") or uses.get("array"):
                    continue  # a dispatch constant (per data type or mode), or the size of an array
                if not divides_extent(ctx, knob):
                    continue  # copied whole, never a piece of a longer extent: a record size, not a tile
                exact = resolved_value(ctx, sf, length, kernel=True)
                nbytes = _bytes(exact, unit, elem) if exact is not None else knob.value * elem
                # A zero (or negative) length is a placeholder the code overrides, not a small copy.
                if nbytes <= 0 or nbytes >= SMALL_BYTES or (exact is None and unit == "blocks"):
                    continue
                reported.add(knob.name)
                yield self._report(ctx, knob, elem, nbytes, call, exact is not None, uses)

    def _report(self, ctx: RuleContext, knob, elem: int, nbytes: int, call, exact: bool, uses: dict):
        target = _target_value(knob, elem, nbytes, ctx)
        fixes = []
        if target > knob.value:
            new_bytes = nbytes * target // knob.value
            gain = dma_efficiency(ctx.chip, new_bytes) / dma_efficiency(ctx.chip, nbytes)
            fits = _fits(ctx, knob, target, call.owner)
            meaning = [k for k in _MEANINGFUL_USES if uses.get(k)]
            fixes.append(
                Fix(
                    title=f"Enlarge the tile: {knob.name} = {target} ({new_bytes // 1024} KB copies, "
                    f"about {gain:.1f}x the DMA bandwidth per copy, DMA cost model)",
                    edits=[edit(knob.literal, str(target))],
                    safe=fits is True and not meaning,
                )
            )
        where = f"{call.name} at {call.loc.file.rsplit('/', 1)[-1]}:{call.loc.line}"
        if exact:
            return self.finding(
                knob.literal,
                (
                    f"{knob.name} = {knob.value} makes each tile copy {nbytes} bytes ({where}); DMA reaches only "
                    f"~{dma_efficiency(ctx.chip, nbytes):.0%} of peak bandwidth at that size, copies of 16 KB or more "
                    "approach it."
                ),
                fixes,
            )
        return self.finding(
            knob.literal,
            (
                f"{knob.name} = {knob.value} decides the length of {where}: about {nbytes} bytes per full tile (not "
                "proved: part of the length is known only at run time, e.g. a tail or a row count). DMA reaches only "
                f"~{dma_efficiency(ctx.chip, nbytes):.0%} of peak bandwidth at that size."
            ),
            fixes,
            severity="info",
        )


def _length(ctx: RuleContext, sf, node, name: str):
    """The node giving the copy's length, its unit (elements: DataCopy's count; blocks of 32 bytes: DataCopy with
    DataCopyParams; bytes: DataCopyPad's blockLen) and the params' blockCount node (None for a plain count)."""
    args = [a for a in node.child_by_field_name("arguments").named_children if a.type != "comment"]
    if len(args) < 3:
        return None, "", None
    third = args[2]
    params = _params(ctx, sf, node, third)
    if params is not None and len(params) < 2:
        return None, "", None
    if name == "DataCopyPad":
        return (params[1], "bytes", params[0]) if params else (None, "", None)
    if params is not None:
        return params[1], "blocks", params[0]
    return third, "elements", None


def _params(ctx: RuleContext, sf, call, arg):
    if arg.type == "call_expression":
        fn = arg.child_by_field_name("function")
        if fn is not None and sf.node_text(fn).endswith("Params"):
            a = arg.child_by_field_name("arguments")
            return [c for c in a.named_children if c.type != "comment"] if a is not None else []
        return None
    if arg.type == "identifier" and sf.node_text(arg) not in ctx.param_vars:
        return None
    found = param_items(sf, call, arg)
    return found[1] if found is not None else None


def _bytes(value: int, unit: str, elem: int) -> int:
    return value * (32 if unit == "blocks" else 1 if unit == "bytes" else elem)


def _reportable(knob) -> bool:
    """A tile-length knob the search has not decided (counts such as TILE_NUM are another rule's business)."""
    return (
        knob.role == "tile"
        and not knob.tuned
        and bool(_LENGTH_NAME.search(knob.name))
        and not _COUNT_NAME.search(knob.name)
    )


def _fits(ctx: RuleContext, knob, value: int, owner: str | None) -> bool | None:
    """Whether the kernel class's buffers all fit in the UB with the knob at `value` (None: a size is unknown)."""
    total = 0
    grows = False
    mine = [b for b in ctx.model.init_buffers if b.owner == owner]
    if not mine:
        return None  # the class gets its buffers from elsewhere (carved from a caller's tensor): the budget is unknown
    for b in mine:
        found = ctx.node(b.size.loc)
        if found is None:
            return None
        size = resolved_value(ctx, *found, kernel=True, override={knob.name: value})
        num = b.num.value if b.num.value is not None else None
        if size is None or num is None:
            return None
        grows = grows or size != resolved_value(ctx, *found, kernel=True)
        total += num * (-(-size // 32) * 32)
    if not grows:
        return None  # no buffer is sized by the constant: the longer copy would overrun a buffer of fixed size
    return total <= ctx.chip.ub_bytes


def _target_value(knob, elem: int, nbytes: int, ctx: RuleContext) -> int:
    """The smallest value giving 16 KB copies, within the knob's annotated domain and a UB budget."""
    per_unit = max(nbytes // max(knob.value, 1), 1)  # bytes per unit of the knob in this copy
    want = -(-GOOD_COPY_BYTES // per_unit)
    buffers = sum(b.num.value or 1 for b in ctx.model.init_buffers if b.queue) or 6
    cap = ctx.chip.ub_bytes // max(buffers, 1) // elem
    if knob.domain:
        fitting = [v for v in sorted(knob.domain) if v * elem * buffers <= ctx.chip.ub_bytes]
        bigger = [v for v in fitting if v >= want]
        return bigger[0] if bigger else (fitting[-1] if fitting else knob.value)
    value = knob.value
    while value < want and value * 2 <= cap:
        value *= 2
    return value
