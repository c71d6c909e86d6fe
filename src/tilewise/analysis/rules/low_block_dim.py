"""A blockDim constant below the chip's vector core count: the other cores sit idle.

The premise is proved by following the data: the constant must BE the launch's blockDim (the SetBlockDim argument or
the `<<<...>>>` count evaluates to it through every assignment on the way). A constant that only bounds it
(`min(coreNum, CAP)`, `n > CAP ? CAP : n`), divides into it (`FP32_BLOCK_NUM = 8` elements per 32-byte block), or
one of several paths where another path launches a run-time count (`SetBlockDim(1)` for an empty or small input
next to `SetBlockDim(coreNum)`) is a deliberate choice, not an idle chip. Raising the count changes how a kernel that
splits its work by GetBlockIdx() cuts it, which may break an alignment the split assumed: the fix is safe ("Apply")
only when `_split_proof` shows, for every case that ran, that each core's share stays non-empty, covering and
32-byte aligned at the new count (the largest such count is offered); otherwise it is "Verify on the emulator".
The expected gain comes from the chip's bandwidth model, not a fixed table, and only for a kernel whose cores each
write final results of their own: when the kernel reduces across the work the cores split (`_cross_core`: its
writes to GM land where no block index decides, under an atomic add, or in one partial-result slot per core), more
cores also mean more partial results to combine, and the finding says what that takes instead of a speedup.
"""

from __future__ import annotations

import re

from tilewise.analysis.chip import cost_model
from tilewise.analysis.findings import Finding, Fix, Severity, edit
from tilewise.analysis.model import Knob
from tilewise.analysis.rules._cross_core import OutputSplit, output_split
from tilewise.analysis.rules._split_proof import proved_count
from tilewise.analysis.rules._valueflow import CAP, VALUE, resolved_value, value_flow
from tilewise.analysis.rules.base import Rule, RuleContext


class LowBlockDim(Rule):
    id = "low-block-dim"
    severity = "warning"
    summary = "blockDim constant below the chip's core count"

    def check(self, ctx: RuleContext):
        cores = ctx.chip.vector_cores
        copies = ctx.model.calls("DataCopy", "DataCopyPad")
        if not copies:
            return  # a kernel that moves no data (a stub): no work for more cores
        if not any(c.in_loop for c in copies) and not any(
            len(c.args) > 1 and ctx.is_global(c.args[1].text) for c in copies
        ):
            return  # it reads no input from GM and writes its output once (a shape, a flag): nothing to split
        candidates: dict[tuple[str, int, str], Knob] = {}
        capped_knobs: set[str] = set()  # constants that bound the count rather than set it: notes, not warnings
        groups = self._sites(ctx)
        # Files with a path that launches a run-time count (an operator folder may hold several programs).
        runtime = {site.loc.file for group in groups for site in group if self._value(ctx, site) is None}
        for group in groups:
            if len(group) > 1 and any(self._value(ctx, site) is None for site in group):
                continue  # another path of this tiling launches a run-time count: the constant is a special case
            flow = value_flow(ctx)
            for site in group:
                found = ctx.node(site.loc)
                if found is None:
                    continue
                sources = flow.sources(*found, kernel=False)
                for knob in ctx.model.knobs:
                    how = sources.get(knob.name)
                    literal_here = knob.kind in ("set_block_dim", "launch") and knob.literal.start == site.loc.start
                    if not literal_here and (how is None or (VALUE not in how and CAP not in how)):
                        continue
                    # min(CONST, coreNum) and min(coreNum, CAP) look alike: a cap near the core count (36 of 48)
                    # is a deliberate limit; one that idles three quarters of the chip or more is worth a look.
                    capped = not literal_here and CAP in (how or set())
                    if capped and knob.value > cores // 4:
                        continue
                    if literal_here and (site.loc.file in runtime or _in_branch(found[1])):
                        continue  # `SetBlockDim(1)` for an empty or small input, next to a path sized at run time
                    if knob.kind in ("set_block_dim", "launch") and not literal_here:
                        continue  # another site's literal, named like a variable here
                    if literal_here or knob.role == "block_dim":
                        candidates[(knob.file, knob.line, knob.name)] = knob
                        capped_knobs.update({knob.name} if capped else set())
        for knob in candidates.values():
            # A file that holds both the launch and its kernel is one program: its own kernel decides the split.
            own = (
                knob.file
                if knob.file in ctx.model.kernel_files
                and any(c.loc.file == knob.file for c in ctx.model.calls("DataCopy", "DataCopyPad"))
                else None
            )
            splits = _block_idx_used(ctx, own) or (own is None and _splits_by_text(ctx))
            if knob.tuned or knob.value <= 0 or knob.value >= cores:
                continue  # a measured choice, a placeholder the code overrides, or enough cores already
            fixes = []
            if splits:
                target = max([v for v in (knob.domain or []) if v <= cores] or [cores])
                combine = output_split(ctx, [own] if own else list(ctx.model.kernel_files))
                if combine.kind != "split":
                    yield self._reduction(ctx, knob, combine, target, knob.name in capped_knobs)
                    continue
                proved = proved_count(ctx, knob, target) if target > knob.value else None
                if proved is not None:
                    fixes.append(
                        Fix(
                            title=f"Use more cores: {knob.name} = {proved[0]} "
                            f"({_gain_text(ctx, knob.value, proved[0])}; "
                            f"{proved[1]})",
                            edits=[edit(knob.literal, str(proved[0]))],
                            safe=True,
                        )
                    )
                elif target > knob.value:
                    fixes.append(
                        Fix(
                            title=f"Use more cores: {knob.name} = {target} ({_gain_text(ctx, knob.value, target)}; "
                            "verify: the kernel's GetBlockIdx() split must stay aligned at the new count)",
                            edits=[edit(knob.literal, str(target))],
                            safe=False,
                        )
                    )
                if knob.name in capped_knobs:
                    yield self.finding(
                        knob.literal,
                        (
                            f"{knob.name} = {knob.value} caps the launch's blockDim: at most {knob.value} of the "
                            f"{cores} "
                            f"vector cores on {ctx.chip.name} work ({_gain_text(ctx, knob.value, cores)}). If the cap "
                            "is "
                            "not deliberate, raise it; the kernel splits its work by GetBlockIdx(), so a larger count "
                            "must "
                            "keep each core's share aligned."
                        ),
                        fixes,
                        severity="info",
                    )
                    continue
                yield self.finding(
                    knob.literal,
                    (
                        f"{knob.name} = {knob.value} is the launch's blockDim: {knob.value} of the {cores} vector "
                        "cores "
                        f"on {ctx.chip.name} work, the rest stay idle ({_gain_text(ctx, knob.value, cores)}). The "
                        "kernel "
                        "splits its work by GetBlockIdx(); a larger count must keep each core's share aligned."
                    ),
                    fixes,
                )
            else:
                yield self.finding(
                    knob.literal,
                    (
                        f"{knob.name} = {knob.value} is the launch's blockDim, {knob.value} of the {cores} vector "
                        "cores on "
                        f"{ctx.chip.name}. The kernel never uses GetBlockIdx() to split its work, so more cores would "
                        "repeat the same work: it must first split its work by core (worth it only if the work is "
                        "large "
                        "enough)."
                    ),
                    severity="info",
                )

    def _reduction(self, ctx: RuleContext, knob: Knob, combine: OutputSplit, target: int, capped: bool) -> Finding:
        """The finding for a kernel whose cores' results need combining: what more cores would take, and no
        elementwise gain (the bandwidth model's figure assumes each core's results are final)."""
        cores, t = ctx.chip.vector_cores, combine.tensor
        head = (
            f"{knob.name} = {knob.value} {'caps' if capped else 'is'} the launch's blockDim: {knob.value} of the "
            f"{cores} vector cores on {ctx.chip.name} work. The kernel reduces across the work GetBlockIdx() splits: "
        )
        verify = True  # the combining is in place: the larger count may work as it is
        if combine.kind == "atomic":
            how = (
                f"every core adds its partial result into the same place in {t} with an atomic add. That combining "
                "is in place, but more cores mean more atomic writes to one place (and the output must start at "
                "zero), so the speedup is less than an elementwise kernel's."
            )
        elif combine.kind == "workspace":
            how = (
                f"the cores' partial results meet in GM and one core combines them into {t} after SyncAll, so more "
                "cores mean more partial results for that core to combine (and room for each in the workspace): "
                "the speedup is less than an elementwise kernel's."
            )
        elif combine.kind == "shared":
            verify = False
            how = (
                f"every core writes its result to the same place in {t} (no block index decides where), so more "
                "cores need their partial results combined: an atomic add (SetAtomicAdd) on that write, or a "
                "workspace, SyncAll and a pass over the partial results. The speedup of an elementwise split does not "
                "apply as is."
            )
        else:
            verify = False
            how = (
                f"each core writes one partial result to a slot of {t} its block index alone places (not its share "
                "of the input), so more cores need more slots and a pass that combines their partial results (or "
                "an atomic add, SetAtomicAdd, into one place). The speedup of an elementwise split does not apply as "
                "is."
            )
        fixes = []
        if verify and target > knob.value:
            fixes.append(
                Fix(
                    title=f"Use more cores: {knob.name} = {target} (verify: every core's partial result must still "
                    f"be combined once into {t}, and each core's share of the input stay aligned)",
                    edits=[edit(knob.literal, str(target))],
                    safe=False,
                )
            )
        severity: Severity = "warning" if verify and not capped else "info"
        return self.finding(knob.literal, head + how, fixes, severity=severity)

    @staticmethod
    def _sites(ctx: RuleContext) -> list[list]:
        """The blockDim expressions, grouped by the tiling function (or the host file of the launches)."""
        groups: list[list] = [list(tf.block_dim) for tf in ctx.model.tiling.functions if tf.block_dim]
        by_file: dict[str, list] = {}
        for launch in ctx.model.launches:
            if launch.block_dim.loc is not None:
                by_file.setdefault(launch.block_dim.loc.file, []).append(launch.block_dim)
        return groups + list(by_file.values())

    @staticmethod
    def _value(ctx: RuleContext, site) -> int | None:
        if site.value is not None:
            return site.value
        found = ctx.node(site.loc)
        return resolved_value(ctx, *found, kernel=False) if found is not None else None


_SPLIT_RE = re.compile(rb"\b(ParamOffset|GetBlockNum|block_idx|get_block_idx)\b")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)


def _block_idx_used(ctx: RuleContext, file: str | None = None) -> bool:
    """GetBlockIdx() decides something: used in an expression, or stored in a name that is read afterwards. A
    kernel that stores it in `blockIdx_` and never reads it does the same work on every core. `file`: only that
    file's kernel (a single-source program that launches its own kernel, beside other programs in the folder)."""
    stored: set[str] = set()
    files = [file] if file else list(ctx.model.kernel_files)
    for call in ctx.model.calls("GetBlockIdx"):
        if call.loc.file not in files:
            continue
        found = ctx.node(call.loc)
        if found is None:
            return True  # no node to read: assume the value is used where it is called
        parent = found[1].parent
        while parent is not None and parent.type in ("parenthesized_expression", "cast_expression"):
            parent = parent.parent
        if parent is not None and parent.type == "assignment_expression":
            left = parent.child_by_field_name("left")
            stored.add(re.split(r"->|\.", found[0].node_text(left))[-1].strip())
        elif parent is not None and parent.type == "init_declarator":
            stored.add(found[0].node_text(parent.child_by_field_name("declarator")).strip())
        else:
            return True  # used right where it is called (an offset, a condition, an argument)
    for name in stored:
        reads = re.compile(rf"\b{re.escape(name)}\b(?!\s*=[^=])")
        decl = re.compile(rf"\b\w+\s+{re.escape(name)}\s*;")
        for p in files:
            sf = ctx.sources.get(p)
            text = _COMMENT_RE.sub("", sf.data.decode("utf-8", "replace")) if sf is not None else ""
            if len(reads.findall(text)) > len(decl.findall(text)):
                return True
    return False


def _splits_by_text(ctx: RuleContext) -> bool:
    """The kernel reads its block index some other way (older `ParamOffset`, a `block_idx` variable, a macro)."""
    return any(_SPLIT_RE.search(ctx.sources[p].data) for p in ctx.model.kernel_files if p in ctx.sources)


def _in_branch(node) -> bool:
    """Inside an `if`/`else`/`case` of its function: a special path (empty input, small shape), not the launch."""
    p = node.parent
    while p is not None and p.type != "function_definition":
        if p.type in ("if_statement", "case_statement", "conditional_expression", "else_clause"):
            return True
        p = p.parent
    return False


def _gain_text(ctx: RuleContext, now: int, target: int) -> str:
    """Bandwidth model: k cores stream at most min(k x one core's DMA peak, HBM). Compute-bound work scales with k."""
    t = cost_model(ctx.chip)
    per_core = t.dma_peak_gibps * 2**30 / 1e9  # GB/s
    bw_now = min(now * per_core, ctx.chip.hbm_gbps)
    bw_target = min(target * per_core, ctx.chip.hbm_gbps)
    return (
        f"cost model: memory-bound work about {bw_target / bw_now:.1f}x faster ({bw_now:.0f} -> {bw_target:.0f} "
        f"GB/s), compute-bound about {target / now:.1f}x"
    )
