"""The OpDef pass: the operator's registration (`class Foo : public OpDef`) read from the host sources.

An OpDef is a chain of builder calls (`this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT})`); this pass
flattens each chain and records the tensors, attributes, and the tiling/infer functions it names. The dtypes it
reads also give the kernel's `DTYPE_X` macros their sizes (`dtype_sizes`), which the constants pass needs.
"""

from __future__ import annotations

from tree_sitter import Node

from tilewise.analysis.dtypes import DTYPE_SIZES, GE_DTYPES, GE_DTYPES_UNMODELLED
from tilewise.analysis.extract.context import BuildContext, FileFacts
from tilewise.analysis.model import AttrDef, OpDef, OperatorModel, Problem, TensorParam
from tilewise.analysis.source import Chunk, SourceFile
from tilewise.analysis.treeutil import arg_nodes, function_name, param_names, squash


def opdef(ctx: BuildContext, model: OperatorModel) -> None:
    """The first OpDef of the host files, with the problems of the chunks read up to it."""
    for f in ctx.of_side("host"):
        for _, (found, problems) in ctx.chunked(f, "opdef", lambda v, c: _opdef_in(ctx, v, c), lambda _c: None):
            ctx.problems.extend(problems)
            if found is not None:
                model.opdef = found
                return


def dtype_sizes(ctx: BuildContext, model: OperatorModel) -> None:
    # DTYPE_X / ORIG_DTYPE_X come from the OpDef's first dtype; the emulator binds them per case.
    if not model.opdef:
        return
    for t in model.opdef.inputs + model.opdef.outputs:
        if t.dtypes and t.dtypes[0] in DTYPE_SIZES:
            size = DTYPE_SIZES[t.dtypes[0]]
            ctx.type_sizes[f"DTYPE_{t.name.upper()}"] = size
            ctx.type_sizes[f"ORIG_DTYPE_{t.name.upper()}"] = size


def _opdef_in(ctx: BuildContext, f: FileFacts, _chunk: Chunk) -> tuple[OpDef | None, list[Problem]]:
    """The first OpDef class of a chunk, and the problems reading it raised (kept with it)."""
    problems: list[Problem] = []
    for cls in f.caps.get("class"):
        base = next((c for c in cls.children if c.type == "base_class_clause"), None)
        name = cls.child_by_field_name("name")
        if base is None or name is None or "OpDef" not in f.sf.node_text(base):
            continue
        op = OpDef(name=f.sf.node_text(name), loc=ctx.nloc(f.sf, name))
        body = cls.child_by_field_name("body")
        if body is None:
            return op, problems
        for call in f.sf.facts("call", body):
            if call.parent is not None and call.parent.type == "expression_statement":
                _opdef_chain(ctx, f.sf, op, call, body, problems)
        return op, problems
    return None, problems


def _opdef_chain(
    ctx: BuildContext, sf: SourceFile, op: OpDef, call: Node, scope: Node, problems: list[Problem]
) -> None:
    """Record what one statement of the OpDef's body declares: a tensor, an attribute, or the functions it names."""
    chain = _flatten_chain(sf, call)
    if not chain:
        return
    head, head_args = chain[0]
    first_arg = _string_arg(sf, head_args)
    if head in ("Input", "Output") and first_arg:
        t = _tensor(ctx, sf, first_arg, chain, scope, problems)
        tensors = op.inputs if head == "Input" else op.outputs
        known = next((x for x in tensors if x.name == t.name), None)
        if known is None:
            tensors.append(t)
        else:  # the same tensor declared again for another SoC config: merge what it allows
            known.dtypes += [d for d in t.dtypes if d not in known.dtypes]
    elif head == "Attr" and first_arg:
        op.attrs.append(_attr(ctx, sf, first_arg, chain))
    else:
        _settings(sf, op, chain)


def _tensor(
    ctx: BuildContext, sf: SourceFile, name: str, chain: list[tuple[str, Node]], scope: Node, problems: list[Problem]
) -> TensorParam:
    """`Input("x").ParamType(...).DataType(...).Format(...)`."""
    t = TensorParam(name=name, loc=ctx.nloc(sf, chain[0][1]))
    for method, args in chain[1:]:
        if method == "ParamType":
            t.param_type = sf.node_text(args).strip("()").split("::")[-1]
        elif method in ("DataType", "DataTypeList"):
            _tensor_dtypes(ctx, sf, t, args, scope, problems)
        elif method in ("Format", "FormatList"):
            t.formats = [s.split("::")[-1].replace("FORMAT_", "") for s in _list_items(sf, args, scope)]
    return t


def _attr(ctx: BuildContext, sf: SourceFile, name: str, chain: list[tuple[str, Node]]) -> AttrDef:
    """`Attr("alpha").AttrType(OPTIONAL).Float(1.0)`: the type is the method that gives the default."""
    a = AttrDef(name=name, loc=ctx.nloc(sf, chain[0][1]))
    for method, args in chain[1:]:
        if method == "AttrType":
            a.required = "REQUIRED" in sf.node_text(args)
        elif method in ("Float", "Int", "Bool", "String", "ListInt", "ListFloat", "ListBool", "Type"):
            a.type = method
            inner = sf.node_text(args)[1:-1].strip()
            a.default = inner or None
    return a


def _settings(sf: SourceFile, op: OpDef, chain: list[tuple[str, Node]]) -> None:
    """`this->SetInferShape(...)`, `this->AICore().SetTiling(...).AddConfig("ascend910b")` and the like."""
    for method, args in chain:
        text = sf.node_text(args)[1:-1].strip()
        if method == "SetTiling":
            op.tiling_func = text.split("::")[-1]
        elif method == "SetInferShape":
            op.infer_shape = text.split("::")[-1]
        elif method == "SetInferDataType":
            op.infer_dtype = text.split("::")[-1]
        elif method == "AddConfig":
            op.configs.append(text.split(",")[0].strip().strip('"'))


def _tensor_dtypes(
    ctx: BuildContext, sf: SourceFile, t: TensorParam, args: Node, scope: Node, problems: list[Problem]
) -> None:
    """A tensor's `.DataType(...)`: a braced list, a local vector, or a helper call returning a braced list."""
    helper = _helper_call(sf, args)
    if helper is None:
        t.dtypes = [_dtype(sf, item, args, problems) for item in _list_items(sf, args, scope)]
        return
    # `.DataType(DtypesOf(ge::DT_BF16))`: the helper's braced list, or a note
    items = _helper_dtypes(ctx, sf, helper)
    t.dtypes = [GE_DTYPES[i] for i in items] if items is not None else []
    t.dtype_note = (
        None
        if items is not None
        else (
            f"dtype list from {sf.node_text(helper)} not read: the helper does not simply return "
            "a braced list of ge::DT_* types"
        )
    )


def _helper_dtypes(ctx: BuildContext, sf: SourceFile, call: Node) -> list[str] | None:
    """The GE dtype names a helper returns for this call, when the helper is a function of the operator's
    sources whose body is one `return {ge::DT_A, param, ...};` (parameters replaced by the call's arguments);
    None otherwise. (A helper in another file is read too; an edit there is seen when this chunk is re-read.)"""
    name = sf.node_text(call.child_by_field_name("function")).split("::")[-1]
    actual = [squash(sf.node_text(a)) for a in arg_nodes(call)]
    for f in sorted(ctx.files, key=lambda f: f.sf is not sf):
        for fn in f.caps.get("function"):
            if function_name(f.sf, fn) != name:
                continue
            items = _returned_list(f.sf, fn)
            params = param_names(f.sf, fn)
            if items is None or len(params) != len(actual):
                return None
            bound = dict(zip(params, actual, strict=True))
            keys = [bound.get(i, i).split("::")[-1].strip() for i in items]
            return keys if all(k in GE_DTYPES for k in keys) else None
    return None


def _dtype(sf: SourceFile, item: str, node: Node, problems: list[Problem]) -> str:
    """The model's name of a `ge::DT_*` dtype; a DT_ name ge does not have is reported in `problems`."""
    key = item.split("::")[-1].strip()
    if key in GE_DTYPES:
        return GE_DTYPES[key]
    if key.startswith("DT_") and key not in GE_DTYPES_UNMODELLED:  # a ge type that does not exist
        # (anything not DT_* is an expression we cannot resolve)
        line, _ = sf.line_col(node.start_byte)
        problems.append(
            Problem(
                file=sf.path,
                line=line,
                message=(
                    f"unknown dtype '{item}' in the OpDef; use a ge::DT_* type such as ge::DT_FLOAT16 or ge::DT_FLOAT"
                ),
            )
        )
    return key.lower()


def _flatten_chain(sf: SourceFile, call: Node) -> list[tuple[str, Node]]:
    """`this->Input("x").ParamType(R).DataType({...})` -> [(Input, args), (ParamType, args), (DataType, args)]."""
    chain: list[tuple[str, Node]] = []
    node: Node | None = call
    while node is not None and node.type == "call_expression":
        fn = node.child_by_field_name("function")
        args = node.child_by_field_name("arguments")
        if fn is None or args is None:
            break
        if fn.type == "field_expression":
            fld = fn.child_by_field_name("field")
            chain.append((sf.node_text(fld) if fld is not None else "", args))
            node = fn.child_by_field_name("argument")
        else:
            chain.append((sf.node_text(fn).split("::")[-1], args))
            break
    chain.reverse()
    return chain


def _string_arg(sf: SourceFile, args: Node) -> str | None:
    for a in args.named_children:
        if a.type in ("string_literal", "concatenated_string"):
            return sf.node_text(a).strip('"')
    return None


def _list_items(sf: SourceFile, args: Node, scope: Node) -> list[str]:
    """Items of `({a, b})`, or of the initializer of a local vector named in `(name)`."""
    inner = args.named_children[0] if args.named_children else None
    if inner is None:
        return []
    if inner.type == "identifier":
        wanted = sf.node_text(inner)
        for decl in sf.facts("decl", scope):
            for d in decl.children_by_field_name("declarator"):
                if d.type == "init_declarator" and sf.node_text(d.child_by_field_name("declarator")) == wanted:
                    inner = d.child_by_field_name("value")
                    break
    if inner is None:
        return []
    if inner.type in ("initializer_list", "argument_list"):
        return [squash(sf.node_text(c)) for c in inner.named_children if c.type != "comment"]
    return [squash(sf.node_text(inner))]


def _helper_call(sf: SourceFile, args: Node) -> Node | None:
    """`(Helper(ge::DT_BF16))`: the one argument is a call of a named function (not a braced list or a name)."""
    inner = [a for a in args.named_children if a.type != "comment"]
    if len(inner) != 1 or inner[0].type != "call_expression":
        return None
    fn = inner[0].child_by_field_name("function")
    if fn is None or fn.type not in ("identifier", "qualified_identifier") or "<" in sf.node_text(fn):
        return None  # (`std::vector<ge::DataType>({...})` is a list spelled out, read as before)
    return inner[0]


def _returned_list(sf: SourceFile, fn: Node) -> list[str] | None:
    """Items of the braced list a function returns: `return {a, b};`, `return std::vector<T>{a, b};`, or a local
    vector initialised with one and returned. None when the body is anything more than that."""
    body = fn.child_by_field_name("body")
    stmts = [c for c in body.named_children if c.type != "comment"] if body is not None else []
    if not stmts or stmts[-1].type != "return_statement" or len(stmts) > 2:
        return None
    value = stmts[-1].named_children[0] if stmts[-1].named_children else None
    if value is not None and value.type == "identifier" and len(stmts) == 2 and stmts[0].type == "declaration":
        decl = next(
            (
                d
                for d in stmts[0].children_by_field_name("declarator")
                if d.type == "init_declarator"
                and sf.node_text(d.child_by_field_name("declarator")) == sf.node_text(value)
            ),
            None,
        )
        value = decl.child_by_field_name("value") if decl is not None else None
    elif len(stmts) != 1:
        return None
    if value is not None and value.type == "compound_literal_expression":
        value = value.child_by_field_name("value")
    if value is None or value.type != "initializer_list":
        return None
    return [squash(sf.node_text(c)) for c in value.named_children if c.type != "comment"]
