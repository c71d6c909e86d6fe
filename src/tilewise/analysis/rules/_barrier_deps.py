"""What a full pipe barrier inside a loop may be ordering, besides what the queues already order.

`PipeBarrier<PIPE_ALL>()` waits for every pipe. In a loop whose stages hand tiles over through TQue EnQue/DeQue it is
redundant, and it serialises the stages. It is load-bearing when the loop body (or a function it calls) has:
- a scalar access, `GetValue`/`SetValue` on a local or global tensor: the scalar unit must wait for the vector or
  MTE pipe that wrote the value (or they for it);
- a hand-off through a tensor no queue orders (a `TBuf`'s `Get()`, a member tensor): one pipe writes it and another
  reads it, e.g. DataCopyPad (MTE2) into a TBuf and Cast (vector) from it;
- a round trip through global memory: the same GM tensor written by MTE3 and read back by MTE2;
- cube work (Mmad, LoadData, Fixpipe, Matmul), whose L1/L0 buffers no vector queue orders.
The scan is textual over the loop's calls and one level of the kernel's own functions it calls: cheap, and errs
towards finding a dependency (which keeps the rule silent) rather than missing one (which would make a racing fix).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from tilewise.analysis.apis import COPIES, PIPES
from tilewise.analysis.rules._scalar_fences import fenced
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import LOOP_TYPES, enclosing_function, function_declarator

_CUBE = frozenset(
    (
        "Mmad",
        "LoadData",
        "Fixpipe",
        "LoadDataWithTranspose",
        "IterateAll",
        "Iterate",
        "GetTensorC",
        "SetTensorA",
        "SetTensorB",
        "LoadData3DV2",
        "MmadWithSparse",
    )
)
_QUEUE_SOURCE = re.compile(rb"(\w+)\s*=\s*[\w.>\-\[\]]*?\b(?:AllocTensor|DeQue)\s*[<(]")
_ENQUEUED = re.compile(rb"\bEnQue\s*(?:<[^>]*>)?\s*\(\s*(\w+)\s*\)")
_TENSOR_BASE = re.compile(r"^\s*(?:\(\s*)?(?:this->)?(\w+)")


@dataclass
class Dependencies:
    """What the barrier orders that no queue does; `queued`: the region also streams through queues."""

    scalar: list[str] = field(default_factory=list)  # "GetValue on xLocal"
    handoff: list[str] = field(default_factory=list)  # "tmp: mte2 -> vector"
    gm_round_trip: list[str] = field(default_factory=list)
    cube: list[str] = field(default_factory=list)
    queued: bool = False
    pipes: set[str] = field(default_factory=set)  # the pipes the region's copies and vector ops run on

    def any(self) -> bool:
        return bool(self.scalar or self.handoff or self.gm_round_trip or self.cube)

    def describe(self) -> str:
        parts = []
        if self.scalar:
            parts.append("scalar accesses (" + ", ".join(sorted(set(self.scalar))[:3]) + ")")
        if self.handoff:
            parts.append("hand-offs through tensors no queue orders (" + ", ".join(sorted(set(self.handoff))[:3]) + ")")
        if self.gm_round_trip:
            parts.append("a round trip through global memory (" + ", ".join(sorted(set(self.gm_round_trip))[:2]) + ")")
        if self.cube:
            parts.append("cube work (" + ", ".join(sorted(set(self.cube))[:3]) + ")")
        return "; ".join(parts)


def region_of(node: Node) -> Node:
    """The innermost loop around the barrier in its function, else the function (which a caller runs in a loop)."""
    p = node.parent
    while p is not None and p.type != "function_definition":
        if p.type in LOOP_TYPES:
            return p
        p = p.parent
    return p if p is not None else node


def regions_of(ctx, sf: SourceFile, node: Node) -> list[tuple[SourceFile, Node]]:
    """The barrier's loop; for a barrier in a function a loop calls, that function and the loops that call it (up
    to two calls up): what the barrier orders is the caller's copy-in, compute and copy-out."""
    region = region_of(node)
    out = [(sf, region)]
    todo = [region] if region.type == "function_definition" else []
    for _ in range(2):
        nxt = []
        for fn in todo:
            name = _function_name(sf, fn)
            for csf, call in _call_sites(ctx).get(name, []):
                outer = region_of(call)
                if outer.type == "function_definition":
                    nxt.append(outer)
                if all(outer is not r for _, r in out):
                    out.append((csf, outer))
        todo = nxt
    return out


@dataclass
class _Call:
    """A call the barrier's regions run. `renames`: inside a called function, its parameters are renamed to the
    caller's arguments, so a TBuf passed to Copy2Ub() and then to Copy2Gm() is seen as one tensor; `origins`: for
    each renamed parameter, the function whose local it is (where a queue tensor's stage is decided); `owner`: the
    class of the caller, since a call resolves to the definitions in its own class when there are any (a kernel with
    several classes has a CopyIn in each)."""

    name: str
    receiver: str | None
    args: list[str]
    renames: dict[str, str]
    origins: dict[str, tuple[SourceFile, Node | None]]
    owner: str | None
    sf: SourceFile
    node: Node

    def origin(self, raw: str) -> tuple[SourceFile, Node | None]:
        """The function whose local `raw` (a tensor as this call spells it) is."""
        return self.origins.get(_base(raw)) or (self.sf, enclosing_function(self.node))


def dependencies(ctx, regions: list[tuple[SourceFile, Node]], barrier: tuple[str, int] | None = None) -> Dependencies:
    """What the code the barrier's regions run orders through it. `barrier` (its file and start byte): a scalar
    access fenced by its own events (_scalar_fences) is then not counted, since those waits order it."""
    deps = Dependencies()
    calls: list[_Call] = [
        _Call(c[1], c[2], c[3], {}, {}, _class_around(sf, region), sf, c[0])
        for sf, region in regions
        for c in _calls_of(ctx, sf, region)
    ]
    defs = _functions(ctx)
    seen_fns: set[tuple] = set()
    texts = [sf.data[region.start_byte : region.end_byte] for sf, region in regions]
    frontier = list(calls)
    for _ in range(3):  # the kernel's own functions the loop calls, three levels deep
        found: list[_Call] = []
        for call in frontier:
            if call.name not in defs or call.name in PIPES or call.name in COPIES:
                continue
            bases = tuple(call.renames.get(_base(a), _base(a)) for a in call.args)
            origins = tuple(call.origin(a) for a in call.args)
            key = (call.name, bases, tuple((o[0].path, o[1].start_byte if o[1] else -1) for o in origins), call.owner)
            if key in seen_fns or len(seen_fns) > 200:
                continue
            seen_fns.add(key)
            for fsf, fn in _resolve(ctx, defs, call.name, call.owner):
                params = _params(fsf, fn)
                inner = {p: b for p, b in zip(params, bases, strict=False) if p and b}
                inner_origins = {p: o for p, b, o in zip(params, bases, origins, strict=False) if p and b}
                fn_owner = _class_cached(ctx, fsf, fn)
                found += [
                    _Call(c[1], c[2], c[3], inner, inner_origins, fn_owner, fsf, c[0]) for c in _calls_of(ctx, fsf, fn)
                ]
                texts.append(fsf.data[fn.start_byte : fn.end_byte])
        calls += found
        frontier = found
    # Queue-ordered: taken from a queue, or put into one, in the code the barrier's loop runs (a name reused
    # elsewhere for a TBuf tensor or a parameter does not count).
    queue_tensors = {m.group(1).decode() for t in texts for m in _QUEUE_SOURCE.finditer(t)}
    queue_tensors |= {m.group(1).decode() for t in texts for m in _ENQUEUED.finditer(t)}
    scalar_accesses: list[tuple[str, str, _Call, tuple[SourceFile, Node | None]]] = []
    pipes_of: dict[str, set[str]] = {}
    gm_written: set[str] = set()
    gm_read: set[str] = set()
    # where each local tensor is touched on a pipe: the function whose local it is (a queue tensor's stage)
    pipe_sites: dict[str, list[tuple[SourceFile, Node | None]]] = {}

    def touch(tensor: str, pipe: str, origin: tuple[SourceFile, Node | None]) -> None:
        pipes_of.setdefault(tensor, set()).add(pipe)
        pipe_sites.setdefault(tensor, []).append(origin)

    for call in calls:
        name, renames = call.name, call.renames
        raw_args = call.args
        args = [renames.get(_base(a), _base(a)) if _base(a) in renames else a for a in raw_args]
        receiver = call.receiver
        if receiver is not None and _base(receiver) in renames:
            receiver = renames[_base(receiver)]
        if name in ("EnQue", "DeQue"):
            deps.queued = True
        elif name in ("GetValue", "SetValue"):
            scalar_accesses.append((name, _base(receiver or "?"), call, call.origin(call.receiver or "")))
        elif name in _CUBE:
            deps.cube.append(name)
        elif name in COPIES and len(args) >= 2:
            dst, src = _base(args[0]), _base(args[1])
            dst_gm, src_gm = ctx.is_global(dst), ctx.is_global(src)
            if dst_gm:
                gm_written.add(dst)
                touch(src, "mte3", call.origin(raw_args[1]))
            elif src_gm:
                gm_read.add(src)
                touch(dst, "mte2", call.origin(raw_args[0]))
            else:  # UB to UB, or a side whose type is unknown: count both ends on an MTE pipe
                touch(dst, "mte", call.origin(raw_args[0]))
                touch(src, "mte", call.origin(raw_args[1]))
        elif PIPES.get(name) == "vector":
            for raw, a in zip(raw_args[:3], args[:3], strict=False):
                base = _base(a)
                if base and ctx.is_global(base) is not True:
                    touch(base, "vector", call.origin(raw))
    for tensor, pipes in pipes_of.items():
        if len(pipes) > 1 and tensor not in queue_tensors:
            deps.handoff.append(f"{tensor}: " + " / ".join(sorted(pipes)))
    for name, tensor, call, origin in scalar_accesses:
        if _scalar_ordered_elsewhere(ctx, name, tensor, call, origin, pipe_sites, barrier):
            continue
        deps.scalar.append(f"{name} on {tensor or '?'}")
    deps.gm_round_trip = sorted(gm_written & gm_read)
    deps.pipes = set().union(*pipes_of.values()) if pipes_of else set()
    return deps


def _scalar_ordered_elsewhere(ctx, name: str, tensor: str, call: _Call, origin, pipe_sites, barrier) -> bool:
    """A scalar access the barrier is not what orders:
    - one fenced by its own events into and out of the scalar pipe (_scalar_fences);
    - a SetValue into a queue tensor whose every pipe access is in another stage (another function takes it from
      the queue: an output row filled element by element and copied out after its EnQue, which orders the scalar
      unit's stores before it as it orders every pipe, the hand-off the emulator's racecheck models). A GetValue
      gets no such pass: a queue's DeQue waits on the vector or MTE pipe, and a read after it is fenced on the
      device by a wait into the scalar pipe.
    Everything else (a global tensor, an unknown receiver, a TBuf) counts as ordered by the barrier."""
    if not tensor or ctx.is_global(tensor) is not False:
        return False
    here = _stage_of(ctx, tensor, origin) if name == "SetValue" else None
    if here is not None and all(_stage_of(ctx, tensor, s) not in (None, here) for s in pipe_sites.get(tensor, [])):
        return True
    return barrier is not None and fenced(call.sf, call.node, barrier, _calls)


def _stage_of(ctx, tensor: str, origin: tuple[SourceFile, Node | None], depth: int = 2) -> tuple | None:
    """The stage a queue tensor's access belongs to: the function whose local it is, when that function takes it
    from its queue itself (`x = q.DeQue<T>()` or `AllocTensor`); for a parameter, the stage its callers all pass it
    from (up to `depth` calls up); None when that is not known."""
    sf, fn = origin
    if fn is None:
        return None
    cache = ctx.__dict__.setdefault("_queue_sourced", {})
    key = (sf.path, fn.start_byte, fn.end_byte)
    if key not in cache:
        cache[key] = {m.group(1).decode() for m in _QUEUE_SOURCE.finditer(sf.data[fn.start_byte : fn.end_byte])}
    if tensor in cache[key]:
        return key
    params = _params(sf, fn)
    if depth == 0 or tensor not in params:
        return None
    at = params.index(tensor)
    stages = set()
    for csf, site in _call_sites(ctx).get(_function_name(sf, fn), []):
        args = site.child_by_field_name("arguments")
        passed = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if at >= len(passed):
            return None
        stages.add(_stage_of(ctx, _base(csf.node_text(passed[at])), (csf, enclosing_function(site)), depth - 1))
    return stages.pop() if len(stages) == 1 else None


def class_of(sf: SourceFile, fn: Node) -> str | None:
    """The class a function definition belongs to: `A::f` outside the class, or the class body it stands in."""
    decl = function_declarator(fn)
    name = decl.child_by_field_name("declarator") if decl is not None else None
    if name is not None and name.type == "qualified_identifier":
        scope = name.child_by_field_name("scope")
        if scope is not None:
            return re.sub(r"<.*", "", sf.node_text(scope)).split("::")[-1] or None
    p = fn.parent
    while p is not None:
        if p.type in ("class_specifier", "struct_specifier"):
            n = p.child_by_field_name("name")
            return re.sub(r"<.*", "", sf.node_text(n)) if n is not None else None
        p = p.parent
    return None


def _resolve(ctx, defs: dict, name: str, owner: str | None) -> list[tuple[SourceFile, Node]]:
    """The definitions a call of `name` from a method of `owner` reaches: those of its own class when it has
    any, else every one of that name. Once per (name, class) and lint run."""
    cache = ctx.__dict__.setdefault("_resolved_calls", {})
    found = cache.get((name, owner))
    if found is None:
        own = [(fsf, fn) for fsf, fn in defs[name] if owner is not None and _class_cached(ctx, fsf, fn) == owner]
        found = cache[(name, owner)] = own or defs[name]
    return found


def _class_cached(ctx, sf: SourceFile, fn: Node) -> str | None:
    cache = ctx.__dict__.setdefault("_function_class", {})
    key = (sf.path, fn.start_byte, fn.end_byte)
    if key not in cache:
        cache[key] = class_of(sf, fn)
    return cache[key]


def _class_around(sf: SourceFile, node: Node) -> str | None:
    """The class of the function holding a region (the region may be the function itself)."""
    fn = node if node.type == "function_definition" else enclosing_function(node)
    return class_of(sf, fn) if fn is not None else None


def _base(text: str) -> str:
    m = _TENSOR_BASE.match(text)
    return m.group(1) if m else ""


def _calls_of(ctx, sf: SourceFile, region: Node) -> list[tuple]:
    """`_calls` of a region, once per lint run: every barrier of a kernel asks again for the functions its loop
    calls, and a large kernel has dozens of barriers over the same helpers."""
    cache = ctx.__dict__.setdefault("_barrier_calls", {})
    key = (sf.path, region.start_byte, region.end_byte)
    found = cache.get(key)
    if found is None:
        found = cache[key] = list(_calls(sf, region))
    return found


def _calls(sf: SourceFile, region: Node):
    """(node, name, receiver, argument texts) of every call inside the region."""
    yield from _calls_of_nodes(sf, sf.facts("call", region))


def _calls_of_nodes(sf: SourceFile, calls):
    for call in calls:
        fn = call.child_by_field_name("function")
        args = call.child_by_field_name("arguments")
        if fn is None or args is None:
            continue
        receiver = None
        if fn.type == "field_expression":
            r = fn.child_by_field_name("argument")
            receiver = sf.node_text(r) if r is not None else None
            fn = fn.child_by_field_name("field")
        while fn is not None and fn.type in (
            "qualified_identifier",
            "template_function",
            "template_method",
            "dependent_name",
        ):
            fn = fn.child_by_field_name("name") or (fn.named_children[-1] if fn.named_children else None)
        if fn is None:
            continue
        yield call, sf.node_text(fn), receiver, [sf.node_text(a) for a in args.named_children if a.type != "comment"]


def _function_name(sf: SourceFile, fn: Node) -> str:
    decl = function_declarator(fn)
    name_node = decl.child_by_field_name("declarator") if decl is not None else None
    return sf.node_text(name_node).split("::")[-1] if name_node is not None else ""


def _params(sf: SourceFile, fn: Node) -> list[str]:
    decl = function_declarator(fn)
    plist = decl.child_by_field_name("parameters") if decl is not None else None
    out = []
    for p in plist.named_children if plist is not None else []:
        m = re.search(r"(\w+)\s*(?:=[^,]*)?$", sf.node_text(p))
        out.append(m.group(1) if m else "")
    return out


def _call_sites(ctx) -> dict[str, list[tuple[SourceFile, Node]]]:
    """Calls of the kernel's own functions by callee name, built once per lint run from per-chunk indexes."""
    found = ctx.__dict__.get("_kernel_call_sites")
    if found is None:
        names = _functions(ctx)
        found = {}
        for p in ctx.model.kernel_files:
            sf = ctx.sources.get(p)
            if sf is None:
                continue
            for span in _indexed(sf, "call_spans", _call_spans):
                if span.name in names:
                    node = _node_at(sf, span, "call_expression")
                    if node is not None:
                        found.setdefault(span.name, []).append((sf, node))
        ctx.__dict__["_kernel_call_sites"] = found
    return found


def _functions(ctx) -> dict[str, list[tuple[SourceFile, Node]]]:
    """The kernel's own function definitions by (unqualified) name, built once per lint run from per-chunk
    indexes: on an edit only the edited chunk is queried again, not the whole file."""
    found = ctx.__dict__.get("_kernel_functions")
    if found is not None:
        return found
    found = {}
    for p in ctx.model.kernel_files:
        sf = ctx.sources.get(p)
        if sf is None:
            continue
        for span in _indexed(sf, "function_spans", _function_spans):
            node = _node_at(sf, span, "function_definition")
            if node is not None:
                found.setdefault(span.name, []).append((sf, node))
    ctx.__dict__["_kernel_functions"] = found
    return found


class _Span:
    """A named node's place in a file, kept per chunk across edits (moved with its chunk, see analysis/chunks.py)."""

    def __init__(self, name: str, start: int, end: int):
        self.name, self.start, self.end = name, start, end


def _function_spans(sf: SourceFile, start: int, end: int) -> list[_Span]:
    return [
        _Span(name, fn.start_byte, fn.end_byte)
        for fn in sf.facts_in(start, end).get("function", [])
        if (name := _function_name(sf, fn))
    ]


def _call_spans(sf: SourceFile, start: int, end: int) -> list[_Span]:
    return [
        _Span(name, call.start_byte, call.end_byte)
        for call, name, _, _ in _calls_of_nodes(sf, sf.facts_in(start, end).get("call", []))
    ]


def _indexed(sf: SourceFile, name: str, spans_of) -> list[_Span]:
    """Every chunk's spans (and the text after the last chunk's), computed only for chunks an edit changed."""
    from tilewise.analysis.chunks import memo

    out: list[_Span] = []

    def compute(chunk, movable: list) -> list[_Span]:
        found = spans_of(sf, chunk.start, chunk.end)
        movable.extend(found)
        return found

    for _, spans in memo(sf, name).run(sf, compute):
        out.extend(spans)
    chunks = sf.chunks()
    tail = chunks[-1].end if chunks else 0
    if tail < len(sf.data):
        out.extend(spans_of(sf, tail, len(sf.data)))
    return out


def _node_at(sf: SourceFile, span: _Span, kind: str) -> Node | None:
    """The node of this kind that covers exactly the span, in the current tree."""
    n = sf.tree.root_node.descendant_for_byte_range(span.start, span.end)
    while n is not None and (n.start_byte, n.end_byte, n.type) != (span.start, span.end, kind):
        if n.start_byte < span.start or n.end_byte > span.end:
            return None
        n = n.parent
    return n
