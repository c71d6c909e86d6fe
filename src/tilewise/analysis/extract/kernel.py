"""The kernel pass: entries, classes, queues, AscendC API calls and tiling-data uses of the kernel's files.

Each chunk is read on its own (`kernel_chunk`) and kept in the SourceFile's memo, so an edit re-reads only the
chunk it touched. What needs the whole kernel is done after: the main entry, which fields read tiling data (known
once every tiling variable is), and which calls run in a loop. That last is a fixpoint over the kernel's call
graph: a call in `CopyIn` runs in the tile loop when `Process` calls `CopyIn` from one, however indirectly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Node

from tilewise.analysis.apis import FREE_APIS, MEMBER_APIS
from tilewise.analysis.evaluate import Evaluator, parse_int_literal
from tilewise.analysis.extract.constants import eval_text
from tilewise.analysis.extract.context import BuildContext, FileFacts
from tilewise.analysis.model import (
    ApiCall,
    Expr,
    InitBufferCall,
    Kernel,
    KernelClass,
    KernelEntry,
    KernelParam,
    LoopInfo,
    OperatorModel,
    Problem,
    QueueDecl,
    TilingDataUse,
    TilingKeyBranch,
    TilingRead,
)
from tilewise.analysis.project import AICORE_KINDS
from tilewise.analysis.queues import (
    QueueType,
    declared_names,
    depth_index,
    init_buffer_queue,
    member_constant,
    position_of,
    queue_aliases,
    queue_type_node,
    unwrap_type,
)
from tilewise.analysis.source import Chunk, SourceFile
from tilewise.analysis.treeutil import (
    LOOP_TYPES,
    arg_nodes,
    declared_name,
    function_name,
    loop_context,
    loop_header,
    owner_class,
    squash,
)

# Intrinsics whose one argument is the API's template argument: pipe_barrier(PIPE_V) is PipeBarrier<PIPE_V>().
_INTRINSIC_FORMS = {"pipe_barrier": "PipeBarrier"}
_TILING_DATA_CALLS = frozenset(
    ("GET_TILING_DATA", "GET_TILING_DATA_WITH_STRUCT", "GET_TILING_DATA_PTR_WITH_STRUCT", "TILING_KEY_IS")
)


@dataclass(slots=True)
class KernelChunk:
    """What one chunk of a kernel-side file says; assembled into the model by `kernel`."""

    entries: list[KernelEntry] = field(default_factory=list)
    classes: list[KernelClass] = field(default_factory=list)
    queues: list[QueueDecl] = field(default_factory=list)
    pipes: list[str] = field(default_factory=list)
    calls: list[tuple[ApiCall, str | None]] = field(default_factory=list)  # with the enclosing function's name
    in_loop_applied: frozenset[str] | None = None  # the in-loop functions the calls' `in_loop` flags were set for
    by_name: dict[str, list[int]] = field(default_factory=dict)  # API name -> positions in `calls`
    by_owner: dict[str | None, list[int]] = field(default_factory=dict)  # class -> positions in `calls`
    init_buffers: list[InitBufferCall] = field(default_factory=list)
    callees: dict[str, set[str]] = field(default_factory=dict)  # function -> user functions it calls
    loop_called: set[str] = field(default_factory=set)  # user functions called from inside a loop
    data_uses: list[TilingDataUse] = field(default_factory=list)
    key_branches: list[TilingKeyBranch] = field(default_factory=list)
    tiling_vars: set[str] = field(default_factory=set)
    # `base.field` expressions by base, with the field and its offsets in the chunk: which read tiling data is
    # known once the whole file's tiling variables are
    field_uses: dict[str, list[tuple[str, int, int]]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def kernel(ctx: BuildContext, model: OperatorModel) -> None:
    """Entries, classes, queues, API calls and tiling-data uses of the kernel side, chunk by chunk; then what
    needs the whole kernel: the main entry, which calls run inside a loop, and which fields read tiling data."""
    files = list(ctx.of_side("kernel"))
    user_functions: set[str] = set()
    aliases: dict[str, QueueType] = {}  # `using InQue = TQue<...>;` anywhere in the kernel's files
    for f in files:
        for _, names in ctx.chunked(f, "functions", _function_names, lambda _c: None):
            user_functions |= names
        for _, found in ctx.chunked(f, "queue_aliases", lambda v, c: queue_aliases(v.sf, c.node), lambda _c: None):
            aliases.update(found)
    ctx.queue_aliases = aliases
    struct_names = frozenset(s.name for s in model.tiling.structs)
    fingerprint = (
        frozenset(ctx.kernel_env.items()),
        frozenset(ctx.type_sizes.items()),
        frozenset(user_functions),
        struct_names,
        model.tiling.struct,
        frozenset(aliases.items()),
    )
    entries: list[KernelEntry] = []
    classes: list[KernelClass] = []
    callees: dict[str, set[str]] = {}
    in_loop: set[str] = set()
    kept: list[KernelChunk] = []
    for f in files:
        parts = ctx.chunked(
            f,
            "kernel",
            lambda view, chunk: kernel_chunk(ctx, view, chunk, user_functions, struct_names, model.tiling.struct),
            lambda _c: fingerprint,
        )
        tiling_vars: set[str] = set()
        queues, pipes, buffers = model.queues, model.pipes, model.init_buffers
        uses, branches = model.tiling_data_uses, model.tiling_key_branches
        for _, part in parts:
            entries += part.entries
            classes += part.classes
            queues.extend(part.queues)
            pipes.extend(part.pipes)
            kept.append(part)
            buffers.extend(part.init_buffers)
            for caller, called in part.callees.items():
                callees.setdefault(caller, set()).update(called)
            in_loop |= part.loop_called
            uses.extend(part.data_uses)
            branches.extend(part.key_branches)
            tiling_vars |= part.tiling_vars
            ctx.problems += part.problems
        _tiling_reads(ctx, model, f.sf, parts, tiling_vars)
    main = next((e for e in entries if Path(e.file).stem == Path(ctx.project.root).name), None)
    main = main or (entries[0] if entries else None)
    model.kernel = Kernel(
        entry=main.name if main else None,
        file=main.file if main else None,
        entries=entries,
        classes=classes,
    )
    if not entries and ctx.project.layout == "project" and ctx.project.kernel_files:
        ctx.problems.append(
            Problem(
                file=str(ctx.project.kernel_files[0]),
                message=(
                    'no kernel entry found: declare it as extern "C" __global__ __aicore__ void <op>(GM_ADDR ...)'
                ),
            )
        )
    _calls_in_loops(model, kept, _loop_closure(callees, in_loop))


def _tiling_reads(ctx: BuildContext, model: OperatorModel, sf: SourceFile, parts: list, tiling_vars: set[str]) -> None:
    """The `base.field` uses of one file whose base holds tiling data, in source order per chunk."""
    for chunk, part in parts:
        if not tiling_vars:
            break
        reads = [
            (start, base, name, end)
            for base, fields in part.field_uses.items()
            if base in tiling_vars or base.lstrip("*&") in tiling_vars
            for name, start, end in fields
        ]
        for start, base, name, end in sorted(reads):
            model.tiling_reads.append(
                TilingRead(var=base, field=name, loc=ctx.loc(sf, chunk.start + start, chunk.start + end))
            )


def _loop_closure(callees: dict[str, set[str]], in_loop: set[str]) -> frozenset[str]:
    """The functions that run in a loop: those called from one, and, until nothing changes, what they call."""
    changed = True
    while changed:
        changed = False
        for caller, called in callees.items():
            if caller in in_loop:
                new = called - in_loop
                if new:
                    in_loop |= new
                    changed = True
    return frozenset(in_loop)


def _calls_in_loops(model: OperatorModel, kept: list[KernelChunk], looping: frozenset[str]) -> None:
    """Set every call's `in_loop` for this call graph, and hand the model its calls with their indexes."""
    by_name: dict[str, list[int]] = {}
    by_owner: dict[str | None, list[int]] = {}
    for part in kept:
        if part.in_loop_applied != looping:  # (a kept chunk's flags are right while the call graph is the same)
            for api, fn_name in part.calls:
                # Kept objects are shared between models: set the flag afresh, never accumulate.
                api.in_loop = bool(api.loops) or fn_name in looping
            part.in_loop_applied = looping
        base = len(model.api_calls)
        for name, positions in part.by_name.items():
            by_name.setdefault(name, []).extend([base + i for i in positions])
        for owner, positions in part.by_owner.items():
            by_owner.setdefault(owner, []).extend([base + i for i in positions])
        model.api_calls.extend([api for api, _ in part.calls])
    model.set_call_index(by_name, by_owner)


def _function_names(f: FileFacts, _chunk: Chunk) -> set[str]:
    return {n for n in (function_name(f.sf, fn) for fn in f.caps.get("function")) if n}


def kernel_chunk(
    ctx: BuildContext,
    f: FileFacts,
    chunk: Chunk,
    user_functions: set[str],
    struct_names: frozenset[str],
    struct: str | None,
) -> KernelChunk:
    part = KernelChunk()
    steps = (
        ("kernel_entries", lambda: _kernel_entries(ctx, f, part)),
        ("classes_and_queues", lambda: _classes_and_queues(ctx, f, part)),
        ("api_calls", lambda: _api_calls(ctx, f, part, user_functions)),
        ("tiling_data", lambda: _tiling_data(ctx, f, part, chunk, struct_names, struct)),
    )
    for name, step in steps:
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - user code must never take a caller down; one step costs only its facts
            part.problems.append(ctx.problem(exc, name))
    return part


def _kernel_entries(ctx: BuildContext, f: FileFacts, part: KernelChunk) -> None:
    for fn in f.caps.get("function"):
        decl = fn.child_by_field_name("declarator")
        if decl is None:
            continue
        head = (fn.start_byte, decl.start_byte)
        has_global = f.sf.has_qualifier(*head, "__global__")
        # `__vector__`, `__cube__` and `__mix__(m, n)` name the AI Core kind in newer CANN instead of `__aicore__`
        has_aicore = any(f.sf.has_qualifier(*head, q) for q in AICORE_KINDS)
        extern_c = fn.parent is not None and fn.parent.type == "linkage_specification"
        name = function_name(f.sf, fn)
        takes_gm = "GM_ADDR" in f.sf.node_text(decl) or f.sf.has_qualifier(decl.start_byte, decl.end_byte, "__gm__")
        if not name or name == "main" or not (has_global or (extern_c and takes_gm)):
            continue
        part.entries.append(
            KernelEntry(
                name=name,
                file=f.sf.path,
                params=_entry_params(f.sf, decl),
                has_aicore=has_aicore,
                has_global=has_global,
                loc=ctx.nloc(f.sf, decl.child_by_field_name("declarator") or decl),
            )
        )


def _entry_params(sf: SourceFile, decl: Node) -> list[KernelParam]:
    params = []
    plist = decl.child_by_field_name("parameters")
    for p in plist.named_children if plist is not None else []:
        t, d = p.child_by_field_name("type"), p.child_by_field_name("declarator")
        if t is not None:
            # `__gm__` was blanked before parsing, so its mark says where it stood (anywhere in the
            # parameter, or just before it: `const __gm__ float* x`, `__gm__ float* __restrict__ x`)
            params.append(
                KernelParam(
                    type=squash(sf.node_text(t) + ("*" if d is not None and d.type == "pointer_declarator" else "")),
                    name=declared_name(sf.node_text(d)) if d is not None else "",
                    gm=sf.has_qualifier(p.start_byte, p.end_byte, "__gm__"),
                )
            )
    return params


def _classes_and_queues(ctx: BuildContext, f: FileFacts, part: KernelChunk) -> None:
    ev = ctx.evaluator(f.sf, "kernel")
    for cls in f.caps.get("class"):
        name = cls.child_by_field_name("name")
        body = cls.child_by_field_name("body")
        if name is None or body is None:
            continue
        tparams = []
        if cls.parent is not None and cls.parent.type == "template_declaration":
            plist = cls.parent.child_by_field_name("parameters")
            tparams = [squash(f.sf.node_text(p)) for p in plist.named_children] if plist else []
        methods = [
            function_name(f.sf, m) or ""
            for m in body.named_children
            if m.type in ("function_definition", "declaration", "field_declaration") and function_name(f.sf, m)
        ]
        part.classes.append(
            KernelClass(
                name=f.sf.node_text(name),
                template_params=tparams,
                methods=methods,
                loc=ctx.nloc(f.sf, name),
            )
        )
    for decl in f.caps.get("decl"):
        _queue_decl(ctx, part, f.sf, decl, ev)


def _queue_decl(ctx: BuildContext, part: KernelChunk, sf: SourceFile, decl: Node, ev: Evaluator) -> None:
    """A TQue/TQueBind/TBuf/TPipe declaration, in any of the forms `analysis.queues` reads."""
    t = decl.child_by_field_name("type")
    if t is None:
        return
    direct = queue_type_node(sf, t)
    if direct is not None:
        kind, nodes = direct
        args = [ctx.expr(sf, a, ev) for a in nodes]
    else:
        alias = ctx.queue_aliases.get(sf.node_text(unwrap_type(t)))
        if alias is None:
            return
        kind = alias.kind
        args = [Expr(text=a, value=eval_text(a, ev.env, ctx.type_sizes)) for a in alias.args]
    if kind == "TPipe":
        part.pipes.extend(sf.node_text(d) for d, _ in declared_names(decl))
        return
    position = position_of(kind, [a.text for a in args])
    index = depth_index(kind)
    depth = None
    if index is not None:
        # AscendC's default depth is 1
        depth = args[index] if len(args) > index else Expr(text="", value=1)
        if depth.value is None:
            value = ev.env.get(depth.text)
            depth.value = value if value is not None else member_constant(sf, decl, depth.text, ev.value)
    owner = owner_class(sf, decl)
    for ident, size in declared_names(decl):
        part.queues.append(
            QueueDecl(
                name=sf.node_text(ident),
                kind=kind,
                position=position,
                depth=depth.value if depth else None,
                depth_expr=depth.text if depth else None,
                owner=owner,
                count=ev.value(size) if size is not None else None,
                loc=ctx.nloc(sf, ident),
            )
        )


def _api_calls(ctx: BuildContext, f: FileFacts, part: KernelChunk, user_functions: set[str]) -> None:
    """The AscendC calls of a chunk, with their loops and function; and the chunk's edges of the call graph."""
    sf = f.sf
    ev = ctx.evaluator(sf, "kernel")
    fn_cache: dict[int, tuple[str | None, str | None]] = {}
    loop_infos: dict[int, LoopInfo] = {}  # calls in one loop share its LoopInfo
    for call in f.caps.get("call"):
        name, receiver, targs = ctx.call_parts(sf, call)
        call_args: list[Node] | None = None  # read only for the calls kept (this loop sees every call)
        if receiver is None and name in _INTRINSIC_FORMS and len(intrinsic_args := arg_nodes(call)) == 1:
            # The CCE intrinsic the API wraps, e.g. pipe_barrier(PIPE_ALL): the same instruction as
            # PipeBarrier<PIPE_ALL>(), so rules and motifs see one call however it is spelled.
            name, targs, call_args = _INTRINSIC_FORMS[name], sf.node_text(intrinsic_args[0]), []
        is_api = name in FREE_APIS if receiver is None else (name in MEMBER_APIS or name in FREE_APIS)
        if not is_api and name not in user_functions:
            continue  # neither an AscendC call nor an edge of the kernel's own call graph
        fn_node, loops = loop_context(call)
        fn_name, owner = _fn_info(sf, fn_node, fn_cache)
        if name in user_functions:
            part.callees.setdefault(fn_name or "", set()).add(name)
            if loops:
                part.loop_called.add(name)
        if not is_api:
            continue
        infos = []
        for lp in loops:
            info = loop_infos.get(lp.id)
            if info is None:
                info = loop_infos[lp.id] = LoopInfo(
                    kind=LOOP_TYPES[lp.type], header=loop_header(sf, lp), loc=ctx.nloc(sf, lp)
                )
            infos.append(info)
        api = ApiCall(
            name=name,
            receiver=receiver,
            template_args=targs,
            args=[_arg_expr(sf, a, call.start_byte) for a in (arg_nodes(call) if call_args is None else call_args)],
            function=fn_name,
            owner=owner,
            loops=infos,
            in_loop=bool(loops),
            loc=ctx.nloc(sf, call),
        )
        part.by_name.setdefault(name, []).append(len(part.calls))
        part.by_owner.setdefault(owner, []).append(len(part.calls))
        part.calls.append((api, fn_name))
        if name == "InitBuffer":
            _init_buffer(ctx, part, sf, api, call, ev)


def _fn_info(sf: SourceFile, fn: Node | None, cache: dict) -> tuple[str | None, str | None]:
    """(name, class) of a function definition, asked once per function per chunk."""
    if fn is None:
        return None, None
    key = (sf.path, fn.id)
    if key not in cache:
        cache[key] = (function_name(sf, fn), owner_class(sf, fn))
    return cache[key]


def _arg_expr(sf: SourceFile, node: Node, call_start: int) -> Expr:
    """An API call's argument; its offsets count from the call's start, so they stay true when the call moves."""
    value = parse_int_literal(sf.node_text(node)) if node.type == "number_literal" else None
    return Expr(
        text=squash(sf.node_text(node)),
        value=value,
        loc=None,
        start=node.start_byte - call_start,
        end=node.end_byte - call_start,
    )


def _init_buffer(ctx: BuildContext, part: KernelChunk, sf: SourceFile, api: ApiCall, call: Node, ev: Evaluator) -> None:
    nodes = arg_nodes(call)
    if len(nodes) == 3:
        queue, num, size = (ctx.expr(sf, n, ev) for n in nodes)
    elif len(nodes) == 2:
        queue, size = (ctx.expr(sf, n, ev) for n in nodes)
        num = Expr(text="1", value=1)
    else:
        return
    total = num.value * size.value if num.value is not None and size.value is not None else None
    part.init_buffers.append(
        InitBufferCall(
            queue=init_buffer_queue(queue.text),
            num=num,
            size=size,
            bytes=total,
            owner=api.owner,
            loc=api.loc,
        )
    )


def _tiling_data(
    ctx: BuildContext, f: FileFacts, part: KernelChunk, chunk: Chunk, struct_names: frozenset[str], struct: str | None
) -> None:
    """`GET_TILING_DATA` uses, `TILING_KEY_IS` branches, the variables that hold tiling data, and the chunk's
    `base.field` expressions (which of them read tiling data is decided once the file's variables are known)."""
    sf = f.sf
    for call in f.caps.get("call"):
        name, receiver, _ = ctx.call_parts(sf, call)
        if receiver is not None or name not in _TILING_DATA_CALLS:
            continue
        args = arg_nodes(call)
        if name in ("GET_TILING_DATA", "GET_TILING_DATA_WITH_STRUCT", "GET_TILING_DATA_PTR_WITH_STRUCT") and args:
            var_node = args[0] if name == "GET_TILING_DATA" else (args[1] if len(args) > 1 else args[0])
            var = sf.node_text(var_node)
            part.tiling_vars.add(var)
            part.data_uses.append(
                TilingDataUse(
                    var=var,
                    struct=sf.node_text(args[0]) if name != "GET_TILING_DATA" else struct,
                    loc=ctx.nloc(sf, call),
                )
            )
        elif name == "TILING_KEY_IS" and args:
            ev = ctx.evaluator(sf, "kernel")
            part.key_branches.append(TilingKeyBranch(key=ctx.expr(sf, args[0], ev), loc=ctx.nloc(sf, call)))
    # Parameters and locals typed as the tiling struct also carry tiling data (`const FooTiling* t`).
    for decl in f.caps.get("decl") + f.caps.get("param"):
        t = decl.child_by_field_name("type")
        if t is not None and sf.node_text(t).split("::")[-1].strip() in struct_names:
            for d in decl.children_by_field_name("declarator"):
                part.tiling_vars.add(re.sub(r"[*&\s]|=.*", "", sf.node_text(d)))
    # Which of these read tiling data is known once the whole file's tiling variables are: keep them all.
    for fe in f.caps.get("field"):
        arg = fe.child_by_field_name("argument")
        fld = fe.child_by_field_name("field")
        if arg is not None and fld is not None:
            part.field_uses.setdefault(sf.node_text(arg).replace("this->", ""), []).append(
                (sf.node_text(fld), fld.start_byte - chunk.start, fld.end_byte - chunk.start)
            )
