"""The host passes: the tiling structs, the tiling functions and what they set, and the kernel launches.

The tiling struct comes from the `BEGIN_TILING_DATA_DEF` marks the preprocessor left (or, in a kernel-invocation
operator, a plain struct named *Tiling*). Tiling functions are read for the values they give the block dim, the
tiling fields, the tiling key and the workspace; a value that evaluates goes to the kernel's environment, so the
kernel pass sees tiling fields the host sets from constants. Launches (`<<<...>>>`) and literal block dims are
knobs a tuner can rewrite.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.evaluate import Evaluator, parse_int_literal
from tilewise.analysis.extract.constants import eval_text, make_knob
from tilewise.analysis.extract.context import BuildContext, FileFacts
from tilewise.analysis.model import (
    Expr,
    Launch,
    OperatorModel,
    SetterCall,
    Tiling,
    TilingField,
    TilingFunction,
    TilingStruct,
)
from tilewise.analysis.source import Chunk, SourceFile
from tilewise.analysis.treeutil import arg_nodes, call_parts, function_name, squash


def tiling_structs(ctx: BuildContext, model: OperatorModel) -> None:
    structs: list[TilingStruct] = []
    registered: dict[str, str] = {}
    for f in ctx.files:
        current: TilingStruct | None = None
        for m in f.sf.pre.marks:
            if m.kind == "tiling_begin" and m.args:
                current = TilingStruct(name=m.args[0].text, loc=ctx.loc(f.sf, m.start, m.end))
                structs.append(current)
            elif m.kind.startswith("tiling_field") and current is not None and len(m.args) >= 2:
                array_len = parse_int_literal(m.args[1].text) if m.kind == "tiling_field_arr" else None
                current.fields.append(
                    TilingField(
                        name=m.args[-1].text,
                        type=m.args[0].text,
                        array_len=array_len,
                        struct_type=m.args[0].text if m.kind == "tiling_field_struct" else None,
                        loc=ctx.loc(f.sf, m.start, m.end),
                    )
                )
            elif m.kind == "tiling_end":
                current = None
            elif m.kind == "tiling_register" and len(m.args) >= 2:
                registered[m.args[1].text] = m.args[0].text
    if not structs:
        structs = _plain_tiling_structs(ctx)
    for s in structs:
        s.op_type = registered.get(s.name)
    main = next((s for s in structs if model.opdef and s.op_type == model.opdef.name), None)
    main = main or next((s for s in structs if s.op_type), None) or (structs[0] if structs else None)
    model.tiling = Tiling(
        struct=main.name if main else None,
        fields=main.fields if main else [],
        structs=structs,
    )


def _plain_tiling_structs(ctx: BuildContext) -> list[TilingStruct]:
    # Kernel-invocation operators declare their tiling as a plain struct, usually named *Tiling*.
    return [
        s
        for f in ctx.files
        for _, found in ctx.chunked(f, "plain_structs", lambda v, c: _plain_structs_in(ctx, v, c), lambda _c: None)
        for s in found
    ]


def _plain_structs_in(ctx: BuildContext, f: FileFacts, _chunk: Chunk) -> list[TilingStruct]:
    out = []
    for cls in f.caps.get("class"):
        name = cls.child_by_field_name("name")
        body = cls.child_by_field_name("body")
        if name is None or body is None or "tiling" not in f.sf.node_text(name).lower():
            continue
        s = TilingStruct(name=f.sf.node_text(name), loc=ctx.nloc(f.sf, name))
        for fd in body.named_children:
            t = fd.child_by_field_name("type")
            for d in fd.children_by_field_name("declarator") if fd.type == "field_declaration" else []:
                ident = d if d.type == "field_identifier" else d.child_by_field_name("declarator")
                if t is not None and ident is not None:
                    s.fields.append(
                        TilingField(
                            name=f.sf.node_text(ident),
                            type=squash(f.sf.node_text(t)),
                            loc=ctx.nloc(f.sf, fd),
                        )
                    )
        out.append(s)
    return out


def tiling_functions(ctx: BuildContext, model: OperatorModel) -> None:
    wanted = model.opdef.tiling_func if model.opdef else None
    fingerprint = (frozenset(ctx.host_env.items()), frozenset(ctx.type_sizes.items()), wanted)
    found: list[tuple[bool, TilingFunction]] = []  # (a tiling function?, what its calls set), in file order
    for f in ctx.of_side("host"):
        for _, functions in ctx.chunked(
            f, "tiling_functions", lambda view, _c: _tiling_functions_in(ctx, view, wanted), lambda _c: fingerprint
        ):
            found += functions
    # Kept results are shared between builds: the model gets copies, and the folding below extends those.
    funcs = [
        TilingFunction(
            name=tf.name,
            loc=tf.loc,
            block_dim=list(tf.block_dim),
            setters=list(tf.setters),
            tiling_keys=list(tf.tiling_keys),
            workspace=list(tf.workspace),
            uses_platform=tf.uses_platform,
        )
        for is_tiling, tf in found
        if is_tiling
    ]
    # Helpers in *_tiling.cpp often do the setting; fold every host call site into the main function.
    if funcs:
        main = next((t for t in funcs if t.name == wanted), funcs[0])
        for is_tiling, tf in found:
            if is_tiling:
                continue
            main.block_dim += tf.block_dim
            main.setters += tf.setters
            main.tiling_keys += tf.tiling_keys
            main.workspace += tf.workspace
            main.uses_platform = main.uses_platform or tf.uses_platform
        model.tiling.function = main.name
    model.tiling.functions = funcs
    for tf in funcs:
        for s in tf.setters:
            if s.expr.value is not None:
                ctx.kernel_env.setdefault(s.field, s.expr.value)


def _tiling_functions_in(ctx: BuildContext, f: FileFacts, wanted: str | None) -> list[tuple[bool, TilingFunction]]:
    """Each function of a chunk: whether it is a tiling function, and the tiling calls in it. A function
    nested in a tiling function is left out: the tiling function's own calls include it."""
    ev = ctx.evaluator(f.sf, "host")
    out: list[tuple[bool, TilingFunction]] = []
    covered: list[Node] = []
    for fn in f.caps.get("function"):
        name = function_name(f.sf, fn)
        params = squash(f.sf.node_text(fn.child_by_field_name("declarator") or fn))
        # An mki (ATB) tiling takes the LaunchParam and fills a KernelInfo.
        is_tiling = name == wanted or "TilingContext" in params or ("LaunchParam" in params and "KernelInfo" in params)
        if not is_tiling and any(c.start_byte <= fn.start_byte < c.end_byte for c in covered):
            continue
        if is_tiling:
            covered.append(fn)
        tf = TilingFunction(
            name=name or "",
            loc=ctx.nloc(f.sf, fn),
        )
        _tiling_calls(ctx, f.sf, fn, tf, ev)
        out.append((is_tiling, tf))
    return out


def _tiling_calls(ctx: BuildContext, sf: SourceFile, fn: Node, tf: TilingFunction, ev: Evaluator) -> None:
    """What one function's calls set: block dim, tiling fields (`set_x`), tiling key, and workspace sizes."""
    ws_vars: set[str] = set()
    text = sf.node_text(fn)
    if "PlatformAscendC" in text or "GetCoreNum" in text:
        tf.uses_platform = True
    for call in sf.facts("call", fn):
        name, _, _ = call_parts(sf, call)
        args = arg_nodes(call)
        if name == "SetBlockDim" and args:
            tf.block_dim.append(ctx.expr(sf, args[0], ev))
        elif name in ("SetTilingKey", "SetTilingId") and args:
            tf.tiling_keys.append(ctx.expr(sf, args[0], ev))
        elif name.startswith("set_") and len(args) == 1:
            tf.setters.append(SetterCall(field=name[4:], expr=ctx.expr(sf, args[0], ev), loc=ctx.nloc(sf, call)))
        elif name == "GetWorkspaceSizes":
            target = _assigned_to(sf, call)
            if target is not None:
                ws_vars.add(target)
    if ws_vars:
        _workspace_sizes(ctx, sf, fn, tf, ev, ws_vars)


def _assigned_to(sf: SourceFile, call: Node) -> str | None:
    """The variable a call's result is stored in (`size_t* ws = ctx->GetWorkspaceSizes(1);` -> `ws`)."""
    assign = call.parent
    while assign is not None and assign.type not in ("init_declarator", "assignment_expression"):
        assign = assign.parent
    if assign is None:
        return None
    target = assign.child_by_field_name("declarator") or assign.child_by_field_name("left")
    return re.sub(r"[*&\s]", "", sf.node_text(target)) if target is not None else None


def _workspace_sizes(
    ctx: BuildContext, sf: SourceFile, fn: Node, tf: TilingFunction, ev: Evaluator, ws_vars: set[str]
) -> None:
    """The values a function stores through its workspace-size pointers (`ws[0] = size;`)."""
    for node in sf.facts("assign", fn):
        if node.type != "assignment_expression":
            continue
        left = node.child_by_field_name("left")
        if left is not None and left.type == "subscript_expression":
            base = left.child_by_field_name("argument")
            if base is not None and sf.node_text(base) in ws_vars:
                tf.workspace.append(ctx.expr(sf, node.child_by_field_name("right"), ev))


def launches(ctx: BuildContext, model: OperatorModel) -> None:
    """`kernel<<<blockDim, ...>>>(...)` launches, and the literal block dims of launches and SetBlockDim as knobs."""
    for f in ctx.files:
        ev = Evaluator(f.sf.node_text, ctx.host_env, ctx.type_sizes)
        for m in f.sf.pre.marks_of("launch"):
            if not m.args:
                continue
            a = m.args[0]
            value = eval_text(a.text, ctx.host_env, ctx.type_sizes)
            if value is None:
                node = f.sf.tree.root_node.named_descendant_for_byte_range(a.start, a.end)
                value = ev.value(node) if node is not None and f.sf.node_text(node) == a.text else None
            model.launches.append(
                Launch(
                    kernel=m.name,
                    block_dim=Expr(text=a.text, value=value, loc=ctx.loc(f.sf, a.start, a.end)),
                    loc=ctx.loc(f.sf, m.start, m.end),
                )
            )
            literal = parse_int_literal(a.text)
            if literal is not None:
                model.knobs.append(make_knob(ctx, f.sf, "blockDim", literal, "launch", "host", a.start, a.end))
    for tf in model.tiling.functions:
        for bd in tf.block_dim:
            lit = parse_int_literal(bd.text)
            if lit is not None and bd.loc is not None:
                sf = ctx.sources[bd.loc.file]
                model.knobs.append(
                    make_knob(ctx, sf, "blockDim", lit, "set_block_dim", "host", bd.loc.start, bd.loc.end)
                )
