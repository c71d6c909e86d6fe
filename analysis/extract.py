"""Build the `OperatorModel` of an operator from its parsed sources.

One pass per fact over tree-sitter queries (fast, in C), then a little Python to connect them: constants are
evaluated host-first so that the kernel can see tiling values the host sets from constants, and a call graph marks
API calls that run inside a tile loop even when the loop sits in a caller (`Process` calling `CopyIn`).

The per-file passes (constants, and everything the kernel says) work chunk by chunk and keep their results in the
SourceFile's memo (`analysis.chunks`): the language server re-builds the model on every keystroke, and only the
chunk that changed is extracted again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Node

from analysis.apis import FREE_APIS, MEMBER_APIS
from analysis.atb import atb_tensors
from analysis.chunks import memo
from analysis.errors import TilewiseError
from analysis.evaluate import DTYPE_SIZES, Evaluator, parse_int_literal
from analysis.knobs import is_tuned, parse_annotation, role_of
from analysis.model import (
    ApiCall,
    AttrDef,
    Expr,
    InitBufferCall,
    Kernel,
    KernelClass,
    KernelEntry,
    KernelParam,
    Knob,
    Launch,
    Loc,
    LoopInfo,
    OpDef,
    OperatorModel,
    Problem,
    QueueDecl,
    SetterCall,
    TensorParam,
    Tiling,
    TilingDataUse,
    TilingField,
    TilingFunction,
    TilingKeyBranch,
    TilingRead,
    TilingStruct,
    make,
)
from analysis.project import OperatorProject
from analysis.queues import (
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
from analysis.source import Chunk, SourceFile
from analysis.treeutil import LOOP_TYPES, function_declarator
from analysis.treeutil import enclosing_function as _enclosing_function

GE_DTYPES = {
    "DT_FLOAT16": "float16",
    "DT_FLOAT": "float32",
    "DT_BF16": "bfloat16",
    "DT_DOUBLE": "float64",
    "DT_INT8": "int8",
    "DT_UINT8": "uint8",
    "DT_INT16": "int16",
    "DT_UINT16": "uint16",
    "DT_INT32": "int32",
    "DT_UINT32": "uint32",
    "DT_INT64": "int64",
    "DT_UINT64": "uint64",
    "DT_BOOL": "bool",
    "DT_COMPLEX64": "complex64",
    "DT_INT4": "int4",
    "DT_HIFLOAT8": "hifloat8",
    "DT_FLOAT8_E4M3FN": "float8_e4m3",
    "DT_FLOAT8_E5M2": "float8_e5m2",
}
# ge::DataType names the analysis does not model (sub-byte, quantised, string and 4/6-bit float types, the CANN
# Graph API's DataType list): valid in an OpDef, so no "unknown dtype" problem; the model carries the lower-case name.
GE_DTYPES_UNMODELLED = frozenset(
    {
        "DT_STRING",
        "DT_DUAL_SUB_INT8",
        "DT_DUAL_SUB_UINT8",
        "DT_COMPLEX128",
        "DT_QINT8",
        "DT_QINT16",
        "DT_QINT32",
        "DT_QUINT8",
        "DT_QUINT16",
        "DT_RESOURCE",
        "DT_STRING_REF",
        "DT_DUAL",
        "DT_VARIANT",
        "DT_UNDEFINED",
        "DT_UINT1",
        "DT_INT2",
        "DT_UINT2",
        "DT_COMPLEX32",
        "DT_FLOAT8_E8M0",
        "DT_FLOAT6_E3M2",
        "DT_FLOAT6_E2M3",
        "DT_FLOAT4_E2M1",
        "DT_FLOAT4_E1M2",
    }
)
INT_TYPES = {
    "int",
    "unsigned",
    "long",
    "short",
    "int8_t",
    "uint8_t",
    "int16_t",
    "uint16_t",
    "int32_t",
    "uint32_t",
    "int64_t",
    "uint64_t",
    "size_t",
    "auto",
    "unsigned int",
    "long long",
    "unsigned long",
    "uint",
    "char",
}

_AICORE_KINDS = ("__aicore__", "__vector__", "__cube__", "__mix__")
_TILING_DATA_CALLS = frozenset(
    ("GET_TILING_DATA", "GET_TILING_DATA_WITH_STRUCT", "GET_TILING_DATA_PTR_WITH_STRUCT", "TILING_KEY_IS")
)


class _Facts:
    """Facts of a whole file, or of one chunk (`facts_in`), found when first asked for."""

    def __init__(self, sf: SourceFile, chunk: Chunk | None = None):
        self.sf, self.chunk = sf, chunk

    def get(self, kind: str, default: list[Node] | None = None) -> list[Node]:
        if self.chunk is None:
            return self.sf.facts(kind)
        return self.sf.facts_in(self.chunk.start, self.chunk.end).get(kind, [])


@dataclass
class _FileFacts:
    sf: SourceFile
    side: str
    caps: _Facts

    def of(self, chunk: Chunk) -> _FileFacts:
        return _FileFacts(self.sf, self.side, _Facts(self.sf, chunk))


@dataclass
class _KernelChunk:
    """What one chunk of a kernel-side file says; assembled into the model by `_kernel`."""

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


@dataclass
class _ConstantsChunk:
    env: dict[str, int]  # what the chunk added to the environment
    knobs: list[Knob]
    problems: list[Problem]


class ModelBuilder:
    """Builds one OperatorModel. `sources` maps path to SourceFile (the server passes open documents)."""

    def __init__(self, project: OperatorProject, sources: dict[str, SourceFile]):
        self.project = project
        self.sources = sources
        self.files: list[_FileFacts] = []
        self.problems: list[Problem] = []
        self.host_env: dict[str, int] = {}
        self.kernel_env: dict[str, int] = {}
        self.queue_aliases: dict[str, QueueType] = {}  # set by the kernel pass
        self.type_sizes: dict[str, int] = {}
        self._parts: dict[tuple[str, int, int], tuple[str, str | None, str | None]] = {}
        self._movable: list | None = None  # while a chunk is extracted: the position-bearing objects it creates

    # ---- helpers -----------------------------------------------------------------------------------------------
    def loc(self, sf: SourceFile, start: int, end: int) -> Loc:
        line, col = sf.line_col(start)
        end_line, end_col = sf.line_col(end)
        loc = make(Loc, file=sf.path, line=line, col=col, end_line=end_line, end_col=end_col, start=start, end=end)
        if self._movable is not None:
            self._movable.append(loc)
        return loc

    def nloc(self, sf: SourceFile, node: Node) -> Loc:
        return self.loc(sf, node.start_byte, node.end_byte)

    def expr(self, sf: SourceFile, node: Node | None, ev: Evaluator | None = None) -> Expr:
        if node is None:
            return make(Expr, text="", value=None, loc=None)
        value = ev.value(node) if ev else None
        expr = make(
            Expr,
            text=_squash(sf.node_text(node)),
            value=value,
            loc=self.nloc(sf, node),
            start=node.start_byte,
            end=node.end_byte,
        )
        if self._movable is not None:
            self._movable.append(expr)
        return expr

    def call_parts(self, sf: SourceFile, call: Node) -> tuple[str, str | None, str | None]:
        """`_call_parts`, once per call per build: several passes look at every call of a kernel."""
        key = (sf.path, call.start_byte, call.end_byte)  # nested calls can share a start: `a()->b()`
        parts = self._parts.get(key)
        if parts is None:
            parts = self._parts[key] = _call_parts(sf, call)
        return parts

    def evaluator(self, sf: SourceFile, side: str) -> Evaluator:
        env = self.kernel_env if side == "kernel" else self.host_env
        return Evaluator(sf.node_text, env, self.type_sizes)

    # ---- the build ---------------------------------------------------------------------------------------------
    def build(self) -> OperatorModel:
        p = self.project
        host = {str(f) for f in p.host_files}
        kernel = {str(f) for f in p.kernel_files}
        for path in [str(f) for f in p.files]:
            sf = self.sources.get(path)
            if sf is None:
                continue
            side = "kernel" if path in kernel and (path not in host or p.layout == "invocation") else "host"
            self.files.append(_FileFacts(sf, side, _Facts(sf)))

        model = OperatorModel(operator=p.name, layout=p.layout, root=str(p.root))
        model.files = [f.sf.path for f in self.files]
        model.host_files = [f.sf.path for f in self.files if f.side == "host" or p.layout == "invocation"]
        model.kernel_files = [f.sf.path for f in self.files if f.side == "kernel"]
        model.problems = self.problems
        if p.layout == "project" and not p.host_files:
            self.problems.append(
                Problem(
                    file=str(p.root / "op_host"),
                    message=("missing op_host/: no host tiling or OpDef found; add op_host/<op>.cpp and <op>_tiling.h"),
                )
            )
        if p.layout == "project" and not p.kernel_files:
            self.problems.append(
                Problem(
                    file=str(p.root / "op_kernel"),
                    message=(
                        "missing op_kernel/: no kernel source found; add op_kernel/<op>.cpp with the __global__ entry"
                    ),
                )
            )

        for f in self.files:
            model.syntax_errors.extend(self.nloc(f.sf, n) for n in f.sf.errors())

        self._run(model, self._opdef)
        self._dtype_sizes(model)
        self._run(model, self._constants)
        self._run(model, self._tiling_structs)
        self._run(model, self._tiling_functions)
        self._run(model, self._launches)
        self._run(model, self._kernel)

        registered = next((s.op_type for s in model.tiling.structs if s.op_type), None)
        model.operator = (
            (model.opdef.name if model.opdef else None)
            or registered
            or (_camel(model.kernel.entry) if model.kernel.entry else None)
            or _camel(p.name)
        )
        if model.opdef:
            model.inputs, model.outputs, model.attrs = model.opdef.inputs, model.opdef.outputs, model.opdef.attrs
        if model.layout == "invocation" and model.launches and not model.kernel.entry:
            model.kernel.entry = model.launches[0].kernel
        if model.layout == "atb":
            atb_tensors(model, p.manifest, [f.sf.text for f in self.files if f.side == "host"])
        return model

    def _run(self, model: OperatorModel, step) -> None:
        # One broken fact must not cost the others: record it as a problem and carry on.
        try:
            step(model)
        except Exception as exc:  # noqa: BLE001 - analysis of arbitrary user code must never take a caller down
            self.problems.append(self._problem(exc, step.__name__.strip("_")))

    def _problem(self, exc: Exception, step: str) -> Problem:
        if isinstance(exc, TilewiseError):
            return Problem(file=exc.file, line=exc.line, message=exc.message)
        return Problem(
            file=str(self.project.root),
            message=(f"internal error in {step}: {type(exc).__name__}: {exc}; please report it"),
        )

    def _chunked(self, f: _FileFacts, name: str, extract, fingerprint, then=None) -> list[tuple[Chunk, object]]:
        """(chunk, `extract(view, chunk)`) for every chunk of f's file, taking back what an earlier build kept for
        chunks that did not change (same text, same `fingerprint(chunk)`)."""

        def compute(chunk: Chunk, movable: list):
            self._movable = movable
            try:
                return extract(f.of(chunk), chunk)
            finally:
                self._movable = None

        return memo(f.sf, f"{name}:{f.side}").run(f.sf, compute, fingerprint, then)

    def _of_side(self, side: str) -> Iterable[_FileFacts]:
        return (f for f in self.files if f.side == side or self.project.layout == "invocation")

    # ---- host: OpDef ---------------------------------------------------------------------------------------------
    def _opdef(self, model: OperatorModel) -> None:
        for f in self._of_side("host"):
            for _, (found, problems) in self._chunked(f, "opdef", self._opdef_in, lambda _c: None):
                self.problems.extend(problems)
                if found is not None:
                    model.opdef = found
                    return

    def _opdef_in(self, f: _FileFacts, _chunk: Chunk) -> tuple[OpDef | None, list[Problem]]:
        """The first OpDef class of a chunk, and the problems reading it raised (kept with it)."""
        outer, self.problems = self.problems, []
        try:
            for cls in f.caps.get("class", []):
                base = next((c for c in cls.children if c.type == "base_class_clause"), None)
                name = cls.child_by_field_name("name")
                if base is None or name is None or "OpDef" not in f.sf.node_text(base):
                    continue
                op = make(
                    OpDef,
                    name=f.sf.node_text(name),
                    inputs=[],
                    outputs=[],
                    attrs=[],
                    tiling_func=None,
                    infer_shape=None,
                    infer_dtype=None,
                    configs=[],
                    loc=self.nloc(f.sf, name),
                )
                body = cls.child_by_field_name("body")
                for call in f.sf.facts("call", body) if body else []:
                    if call.parent is not None and call.parent.type == "expression_statement":
                        self._opdef_chain(f.sf, op, call, body)
                return op, self.problems
            return None, self.problems
        finally:
            self.problems = outer

    def _opdef_chain(self, sf: SourceFile, op: OpDef, call: Node, scope: Node) -> None:
        chain = _flatten_chain(sf, call)
        if not chain:
            return
        head, head_args = chain[0]
        first_arg = _string_arg(sf, head_args)
        if head in ("Input", "Output") and first_arg:
            t = make(
                TensorParam, name=first_arg, param_type="REQUIRED", dtypes=[], formats=[], loc=self.nloc(sf, head_args)
            )
            for method, args in chain[1:]:
                if method == "ParamType":
                    t.param_type = sf.node_text(args).strip("()").split("::")[-1]
                elif method in ("DataType", "DataTypeList"):
                    helper = _helper_call(sf, args)
                    if helper is None:
                        t.dtypes = [self._dtype(sf, item, args) for item in _list_items(sf, args, scope)]
                    else:  # `.DataType(DtypesOf(ge::DT_BF16))`: the helper's braced list, or a note
                        items = self._helper_dtypes(sf, helper)
                        t.dtypes = [GE_DTYPES[i] for i in items] if items is not None else []
                        t.dtype_note = (
                            None
                            if items is not None
                            else (
                                f"dtype list from {sf.node_text(helper)} not read: the helper does not simply return "
                                "a braced list of ge::DT_* types"
                            )
                        )
                elif method in ("Format", "FormatList"):
                    t.formats = [s.split("::")[-1].replace("FORMAT_", "") for s in _list_items(sf, args, scope)]
            tensors = op.inputs if head == "Input" else op.outputs
            known = next((x for x in tensors if x.name == t.name), None)
            if known is None:
                tensors.append(t)
            else:  # the same tensor declared again for another SoC config: merge what it allows
                known.dtypes += [d for d in t.dtypes if d not in known.dtypes]
        elif head == "Attr" and first_arg:
            a = make(
                AttrDef, name=first_arg, type="unknown", required=False, default=None, loc=self.nloc(sf, head_args)
            )
            for method, args in chain[1:]:
                if method == "AttrType":
                    a.required = "REQUIRED" in sf.node_text(args)
                elif method in ("Float", "Int", "Bool", "String", "ListInt", "ListFloat", "ListBool", "Type"):
                    a.type = method
                    inner = sf.node_text(args)[1:-1].strip()
                    a.default = inner or None
            op.attrs.append(a)
        else:
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

    def _helper_dtypes(self, sf: SourceFile, call: Node) -> list[str] | None:
        """The GE dtype names a helper returns for this call, when the helper is a function of the operator's
        sources whose body is one `return {ge::DT_A, param, ...};` (parameters replaced by the call's arguments);
        None otherwise. (A helper in another file is read too; an edit there is seen when this chunk is re-read.)"""
        name = sf.node_text(call.child_by_field_name("function")).split("::")[-1]
        actual = [_squash(sf.node_text(a)) for a in _arg_nodes(call)]
        for f in sorted(self.files, key=lambda f: f.sf is not sf):
            for fn in f.caps.get("function", []):
                if _function_name(f.sf, fn) != name:
                    continue
                items = _returned_list(f.sf, fn)
                params = _param_names(f.sf, fn)
                if items is None or len(params) != len(actual):
                    return None
                bound = dict(zip(params, actual, strict=True))
                keys = [bound.get(i, i).split("::")[-1].strip() for i in items]
                return keys if all(k in GE_DTYPES for k in keys) else None
        return None

    def _dtype(self, sf: SourceFile, item: str, node: Node) -> str:
        key = item.split("::")[-1].strip()
        if key in GE_DTYPES:
            return GE_DTYPES[key]
        if key.startswith("DT_") and key not in GE_DTYPES_UNMODELLED:  # a ge type that does not exist
            # (anything not DT_* is an expression we cannot resolve)
            line, _ = sf.line_col(node.start_byte)
            self.problems.append(
                Problem(
                    file=sf.path,
                    line=line,
                    message=(
                        f"unknown dtype '{item}' in the OpDef; use a ge::DT_* type such as ge::DT_FLOAT16 or "
                        "ge::DT_FLOAT"
                    ),
                )
            )
        return key.lower()

    def _dtype_sizes(self, model: OperatorModel) -> None:
        # DTYPE_X / ORIG_DTYPE_X come from the OpDef's first dtype; the emulator binds them per case.
        if not model.opdef:
            return
        for t in model.opdef.inputs + model.opdef.outputs:
            if t.dtypes and t.dtypes[0] in DTYPE_SIZES:
                size = DTYPE_SIZES[t.dtypes[0]]
                self.type_sizes[f"DTYPE_{t.name.upper()}"] = size
                self.type_sizes[f"ORIG_DTYPE_{t.name.upper()}"] = size

    # ---- constants and knobs -------------------------------------------------------------------------------------
    def _constants(self, model: OperatorModel) -> None:
        sizes = frozenset(self.type_sizes.items())
        for side in ("host", "kernel"):
            env = self.host_env if side == "host" else self.kernel_env
            for f in self._of_side(side):
                # A chunk's constants depend on those before it: its fingerprint is the environment it starts in.
                view = _FileFacts(f.sf, side, f.caps)
                parts = self._chunked(
                    view,
                    "constants",
                    lambda v, _c, env=env: self._constants_in(v, env),
                    lambda _c, env=env: (frozenset(env.items()), sizes, self.project.layout),
                    lambda part, env=env: env.update(part.env),
                )
                for _, part in parts:
                    self.problems.extend(part.problems)
                    for knob in part.knobs:
                        if not any(k.name == knob.name and k.file == knob.file for k in model.knobs):
                            model.knobs.append(knob)

    def _constants_in(self, f: _FileFacts, env: dict[str, int]) -> _ConstantsChunk:
        before = dict(env)
        part = _ConstantsChunk({}, [], [])
        ev = Evaluator(f.sf.node_text, env, self.type_sizes)
        items = [(n.start_byte, n) for n in f.caps.get("define", []) + f.caps.get("decl", [])]
        try:
            for _, node in sorted(items, key=lambda x: x[0]):
                knob = self._constant(f, node, ev, f.side, env)
                if knob and f.side == _knob_side(f, node, self.project.layout):
                    part.knobs.append(knob)
        except Exception as exc:  # noqa: BLE001 - see _run
            part.problems.append(self._problem(exc, "constants"))
        part.env = {k: v for k, v in env.items() if k not in before or before[k] != v}
        return part

    def _constant(self, f: _FileFacts, node: Node, ev: Evaluator, side: str, env: dict[str, int]) -> Knob | None:
        sf = f.sf
        if node.type == "preproc_def":
            name_node, value_node = node.child_by_field_name("name"), node.child_by_field_name("value")
            if name_node is None or value_node is None:
                return None
            name = sf.node_text(name_node)
            raw = sf.node_text(value_node)
            literal = _literal_in(raw)
            if literal is not None:
                value, off, length = literal
                env[name] = value
                start = value_node.start_byte + len(raw[:off].encode())
                return self._knob(sf, name, value, "define", side, start, start + length)
            value = _eval_text(raw, env, self.type_sizes)
            if value is not None:
                env[name] = value
            return None
        quals = {sf.node_text(c) for c in node.children if c.type in ("type_qualifier", "storage_class_specifier")}
        kind = "constexpr" if "constexpr" in quals else "const" if "const" in quals else None
        type_node = node.child_by_field_name("type")
        if kind is None or type_node is None or _squash(sf.node_text(type_node)) not in INT_TYPES:
            return None
        knob = None
        for decl in node.children_by_field_name("declarator"):
            if decl.type != "init_declarator":
                continue
            name_node, value_node = decl.child_by_field_name("declarator"), decl.child_by_field_name("value")
            if name_node is None or value_node is None or name_node.type not in ("identifier", "field_identifier"):
                continue
            if value_node.type == "initializer_list" and value_node.named_child_count == 1:
                value_node = value_node.named_children[0]
            name = sf.node_text(name_node)
            value = ev.value(value_node)
            if value is None:
                continue
            env[name] = value
            lit = _literal_node(value_node)
            if lit is not None and knob is None:
                knob = self._knob(sf, name, value, kind, side, lit.start_byte, lit.end_byte)
        return knob

    def _knob(self, sf: SourceFile, name: str, value: int, kind: str, side: str, start: int, end: int) -> Knob:
        literal = self.loc(sf, start, end)
        line = sf.line_text(literal.line)
        knob = make(
            Knob,
            name=name,
            value=value,
            file=sf.path,
            line=literal.line,
            col=literal.col,
            kind=kind,
            side=side,
            role=role_of(name),
            domain=parse_annotation(line, name),
            tuned=is_tuned(line),
            literal=literal,
        )
        if self._movable is not None:
            self._movable.append(knob)
        return knob

    # ---- host: tiling struct and function ------------------------------------------------------------------------
    def _tiling_structs(self, model: OperatorModel) -> None:
        structs: list[TilingStruct] = []
        registered: dict[str, str] = {}
        for f in self.files:
            current: TilingStruct | None = None
            for m in f.sf.pre.marks:
                if m.kind == "tiling_begin" and m.args:
                    current = make(
                        TilingStruct, name=m.args[0].text, op_type=None, fields=[], loc=self.loc(f.sf, m.start, m.end)
                    )
                    structs.append(current)
                elif m.kind.startswith("tiling_field") and current is not None and len(m.args) >= 2:
                    array_len = parse_int_literal(m.args[1].text) if m.kind == "tiling_field_arr" else None
                    current.fields.append(
                        make(
                            TilingField,
                            name=m.args[-1].text,
                            type=m.args[0].text,
                            array_len=array_len,
                            struct_type=m.args[0].text if m.kind == "tiling_field_struct" else None,
                            loc=self.loc(f.sf, m.start, m.end),
                        )
                    )
                elif m.kind == "tiling_end":
                    current = None
                elif m.kind == "tiling_register" and len(m.args) >= 2:
                    registered[m.args[1].text] = m.args[0].text
        if not structs:
            structs = self._plain_tiling_structs()
        for s in structs:
            s.op_type = registered.get(s.name)
        main = next((s for s in structs if model.opdef and s.op_type == model.opdef.name), None)
        main = main or next((s for s in structs if s.op_type), None) or (structs[0] if structs else None)
        model.tiling = make(
            Tiling,
            struct=main.name if main else None,
            fields=main.fields if main else [],
            structs=structs,
            function=None,
            functions=[],
        )

    def _plain_tiling_structs(self) -> list[TilingStruct]:
        # Kernel-invocation operators declare their tiling as a plain struct, usually named *Tiling*.
        return [
            s
            for f in self.files
            for _, found in self._chunked(f, "plain_structs", self._plain_structs_in, lambda _c: None)
            for s in found
        ]

    def _plain_structs_in(self, f: _FileFacts, _chunk: Chunk) -> list[TilingStruct]:
        out = []
        for cls in f.caps.get("class", []):
            name = cls.child_by_field_name("name")
            body = cls.child_by_field_name("body")
            if name is None or body is None or "tiling" not in f.sf.node_text(name).lower():
                continue
            s = make(TilingStruct, name=f.sf.node_text(name), op_type=None, fields=[], loc=self.nloc(f.sf, name))
            for fd in body.named_children:
                t = fd.child_by_field_name("type")
                for d in fd.children_by_field_name("declarator") if fd.type == "field_declaration" else []:
                    ident = d if d.type == "field_identifier" else d.child_by_field_name("declarator")
                    if t is not None and ident is not None:
                        s.fields.append(
                            make(
                                TilingField,
                                name=f.sf.node_text(ident),
                                type=_squash(f.sf.node_text(t)),
                                array_len=None,
                                struct_type=None,
                                loc=self.nloc(f.sf, fd),
                            )
                        )
            out.append(s)
        return out

    def _tiling_functions(self, model: OperatorModel) -> None:
        wanted = model.opdef.tiling_func if model.opdef else None
        fingerprint = (frozenset(self.host_env.items()), frozenset(self.type_sizes.items()), wanted)
        found: list[tuple[bool, TilingFunction]] = []  # (a tiling function?, what its calls set), in file order
        for f in self._of_side("host"):
            for _, functions in self._chunked(
                f, "tiling_functions", lambda view, _c: self._tiling_functions_in(view, wanted), lambda _c: fingerprint
            ):
                found += functions
        # Kept results are shared between builds: the model gets copies, and the folding below extends those.
        funcs = [
            make(
                TilingFunction,
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
                    self.kernel_env.setdefault(s.field, s.expr.value)

    def _tiling_functions_in(self, f: _FileFacts, wanted: str | None) -> list[tuple[bool, TilingFunction]]:
        """Each function of a chunk: whether it is a tiling function, and the tiling calls in it. A function
        nested in a tiling function is left out: the tiling function's own calls include it."""
        ev = self.evaluator(f.sf, "host")
        out: list[tuple[bool, TilingFunction]] = []
        covered: list[Node] = []
        for fn in f.caps.get("function", []):
            name = _function_name(f.sf, fn)
            params = _squash(f.sf.node_text(fn.child_by_field_name("declarator") or fn))
            # An mki (ATB) tiling takes the LaunchParam and fills a KernelInfo.
            is_tiling = (
                name == wanted or "TilingContext" in params or ("LaunchParam" in params and "KernelInfo" in params)
            )
            if not is_tiling and any(c.start_byte <= fn.start_byte < c.end_byte for c in covered):
                continue
            if is_tiling:
                covered.append(fn)
            tf = make(
                TilingFunction,
                name=name or "",
                loc=self.nloc(f.sf, fn),
                block_dim=[],
                setters=[],
                tiling_keys=[],
                workspace=[],
                uses_platform=False,
            )
            self._tiling_calls(f.sf, fn, tf, ev)
            out.append((is_tiling, tf))
        return out

    def _tiling_calls(self, sf: SourceFile, fn: Node, tf: TilingFunction, ev: Evaluator) -> None:
        ws_vars: set[str] = set()
        text = sf.node_text(fn)
        if "PlatformAscendC" in text or "GetCoreNum" in text:
            tf.uses_platform = True
        for call in sf.facts("call", fn):
            name, _, _ = _call_parts(sf, call)
            args = _arg_nodes(call)
            if name == "SetBlockDim" and args:
                tf.block_dim.append(self.expr(sf, args[0], ev))
            elif name in ("SetTilingKey", "SetTilingId") and args:
                tf.tiling_keys.append(self.expr(sf, args[0], ev))
            elif name.startswith("set_") and len(args) == 1:
                tf.setters.append(
                    make(SetterCall, field=name[4:], expr=self.expr(sf, args[0], ev), loc=self.nloc(sf, call))
                )
            elif name == "GetWorkspaceSizes":
                assign = call.parent
                while assign is not None and assign.type not in ("init_declarator", "assignment_expression"):
                    assign = assign.parent
                if assign is not None:
                    target = assign.child_by_field_name("declarator") or assign.child_by_field_name("left")
                    if target is not None:
                        ws_vars.add(re.sub(r"[*&\s]", "", sf.node_text(target)))
        if not ws_vars:
            return
        for node in sf.facts("assign", fn):
            if node.type != "assignment_expression":
                continue
            left = node.child_by_field_name("left")
            if left is not None and left.type == "subscript_expression":
                base = left.child_by_field_name("argument")
                if base is not None and sf.node_text(base) in ws_vars:
                    tf.workspace.append(self.expr(sf, node.child_by_field_name("right"), ev))

    def _launches(self, model: OperatorModel) -> None:
        for f in self.files:
            ev = Evaluator(f.sf.node_text, self.host_env, self.type_sizes)
            for m in f.sf.pre.marks_of("launch"):
                if not m.args:
                    continue
                a = m.args[0]
                value = _eval_text(a.text, self.host_env, self.type_sizes)
                if value is None:
                    node = f.sf.tree.root_node.named_descendant_for_byte_range(a.start, a.end)
                    value = ev.value(node) if node is not None and f.sf.node_text(node) == a.text else None
                model.launches.append(
                    make(
                        Launch,
                        kernel=m.name,
                        block_dim=make(Expr, text=a.text, value=value, loc=self.loc(f.sf, a.start, a.end)),
                        loc=self.loc(f.sf, m.start, m.end),
                    )
                )
                if parse_int_literal(a.text) is not None:
                    model.knobs.append(
                        self._knob(f.sf, "blockDim", parse_int_literal(a.text), "launch", "host", a.start, a.end)
                    )
        for tf in model.tiling.functions:
            for bd in tf.block_dim:
                lit = parse_int_literal(bd.text)
                if lit is not None and bd.loc is not None:
                    sf = self.sources[bd.loc.file]
                    model.knobs.append(
                        self._knob(sf, "blockDim", lit, "set_block_dim", "host", bd.loc.start, bd.loc.end)
                    )

    # ---- kernel ----------------------------------------------------------------------------------------------
    def _kernel(self, model: OperatorModel) -> None:
        """Entries, classes, queues, API calls and tiling-data uses of the kernel side, chunk by chunk; then what
        needs the whole kernel: the main entry, which calls run inside a loop, and which fields read tiling data."""
        files = list(self._of_side("kernel"))
        user_functions: set[str] = set()
        aliases: dict[str, QueueType] = {}  # `using InQue = TQue<...>;` anywhere in the kernel's files
        for f in files:
            for _, names in self._chunked(f, "functions", self._function_names, lambda _c: None):
                user_functions |= names
            for _, found in self._chunked(
                f, "queue_aliases", lambda v, c: queue_aliases(v.sf, c.node), lambda _c: None
            ):
                aliases.update(found)
        self.queue_aliases = aliases
        struct_names = frozenset(s.name for s in model.tiling.structs)
        fingerprint = (
            frozenset(self.kernel_env.items()),
            frozenset(self.type_sizes.items()),
            frozenset(user_functions),
            struct_names,
            model.tiling.struct,
            frozenset(aliases.items()),
        )
        entries: list[KernelEntry] = []
        classes: list[KernelClass] = []
        callees: dict[str, set[str]] = {}
        in_loop: set[str] = set()
        kept: list[_KernelChunk] = []
        for f in files:
            parts = self._chunked(
                f,
                "kernel",
                lambda view, chunk: self._kernel_chunk(view, chunk, user_functions, struct_names, model.tiling.struct),
                lambda _c: fingerprint,
            )
            tiling_vars: set[str] = set()
            # (the model's lists are extended in place: `model.x += ...` would go through pydantic's __setattr__)
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
                self.problems += part.problems
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
                        make(
                            TilingRead, var=base, field=name, loc=self.loc(f.sf, chunk.start + start, chunk.start + end)
                        )
                    )
        main = next((e for e in entries if Path(e.file).stem == Path(self.project.root).name), None)
        main = main or (entries[0] if entries else None)
        model.kernel = make(
            Kernel,
            entry=main.name if main else None,
            file=main.file if main else None,
            entries=entries,
            classes=classes,
        )
        if not entries and self.project.layout == "project" and self.project.kernel_files:
            self.problems.append(
                Problem(
                    file=str(self.project.kernel_files[0]),
                    message=(
                        'no kernel entry found: declare it as extern "C" __global__ __aicore__ void <op>(GM_ADDR ...)'
                    ),
                )
            )
        # A call runs in a loop when it sits in one, or when its function is called from one, however indirectly.
        changed = True
        while changed:
            changed = False
            for caller, called in callees.items():
                if caller in in_loop:
                    new = called - in_loop
                    if new:
                        in_loop |= new
                        changed = True
        looping = frozenset(in_loop)
        by_name: dict[str, list[int]] = {}
        by_owner: dict[str | None, list[int]] = {}
        for part in kept:
            if part.in_loop_applied != looping:  # (a kept chunk's flags are right while the call graph is the same)
                for api, fn_name in part.calls:
                    # Kept objects are shared between models: set the flag afresh, never accumulate (and skip
                    # pydantic's __setattr__, which costs more than the rest of this loop).
                    api.__dict__["in_loop"] = bool(api.loops) or fn_name in looping
                part.in_loop_applied = looping
            base = len(model.api_calls)
            for index, local in ((by_name, part.by_name), (by_owner, part.by_owner)):
                for key, positions in local.items():
                    index.setdefault(key, []).extend([base + i for i in positions])
            model.api_calls.extend([api for api, _ in part.calls])
        model.set_call_index(by_name, by_owner)

    def _function_names(self, f: _FileFacts, _chunk: Chunk) -> set[str]:
        return {n for n in (_function_name(f.sf, fn) for fn in f.caps.get("function", [])) if n}

    def _kernel_chunk(
        self, f: _FileFacts, chunk: Chunk, user_functions: set[str], struct_names: frozenset[str], struct: str | None
    ) -> _KernelChunk:
        part = _KernelChunk()
        steps = (
            ("kernel_entries", lambda: self._kernel_entries(f, part)),
            ("classes_and_queues", lambda: self._classes_and_queues(f, part)),
            ("api_calls", lambda: self._api_calls(f, part, user_functions)),
            ("tiling_data", lambda: self._tiling_data(f, part, chunk, struct_names, struct)),
        )
        for name, step in steps:
            try:
                step()
            except Exception as exc:  # noqa: BLE001 - see _run: one broken step costs only its own facts
                part.problems.append(self._problem(exc, name))
        return part

    def _kernel_entries(self, f: _FileFacts, part: _KernelChunk) -> None:
        for fn in f.caps.get("function", []):
            decl = fn.child_by_field_name("declarator")
            if decl is None:
                continue
            head = (fn.start_byte, decl.start_byte)
            has_global = f.sf.has_qualifier(*head, "__global__")
            # `__vector__`, `__cube__` and `__mix__(m, n)` name the AI Core kind in newer CANN instead of `__aicore__`
            has_aicore = any(f.sf.has_qualifier(*head, q) for q in _AICORE_KINDS)
            extern_c = fn.parent is not None and fn.parent.type == "linkage_specification"
            name = _function_name(f.sf, fn)
            takes_gm = "GM_ADDR" in f.sf.node_text(decl) or f.sf.has_qualifier(decl.start_byte, decl.end_byte, "__gm__")
            if not name or name == "main" or not (has_global or (extern_c and takes_gm)):
                continue
            params = []
            plist = decl.child_by_field_name("parameters")
            for p in plist.named_children if plist is not None else []:
                t, d = p.child_by_field_name("type"), p.child_by_field_name("declarator")
                if t is not None:
                    # `__gm__` was blanked before parsing, so its mark says where it stood (anywhere in the
                    # parameter, or just before it: `const __gm__ float* x`, `__gm__ float* __restrict__ x`)
                    params.append(
                        KernelParam(
                            type=_squash(
                                f.sf.node_text(t) + ("*" if d is not None and d.type == "pointer_declarator" else "")
                            ),
                            name=_declared_name(f.sf.node_text(d)) if d is not None else "",
                            gm=f.sf.has_qualifier(p.start_byte, p.end_byte, "__gm__"),
                        )
                    )
            part.entries.append(
                make(
                    KernelEntry,
                    name=name,
                    file=f.sf.path,
                    params=params,
                    has_aicore=has_aicore,
                    has_global=has_global,
                    loc=self.nloc(f.sf, decl.child_by_field_name("declarator") or decl),
                )
            )

    def _classes_and_queues(self, f: _FileFacts, part: _KernelChunk) -> None:
        ev = self.evaluator(f.sf, "kernel")
        for cls in f.caps.get("class", []):
            name = cls.child_by_field_name("name")
            body = cls.child_by_field_name("body")
            if name is None or body is None:
                continue
            tparams = []
            if cls.parent is not None and cls.parent.type == "template_declaration":
                plist = cls.parent.child_by_field_name("parameters")
                tparams = [_squash(f.sf.node_text(p)) for p in plist.named_children] if plist else []
            methods = [
                _function_name(f.sf, m) or ""
                for m in body.named_children
                if m.type in ("function_definition", "declaration", "field_declaration") and _function_name(f.sf, m)
            ]
            part.classes.append(
                make(
                    KernelClass,
                    name=f.sf.node_text(name),
                    template_params=tparams,
                    methods=methods,
                    loc=self.nloc(f.sf, name),
                )
            )
        for decl in f.caps.get("decl", []):
            self._queue_decl(part, f.sf, decl, ev)

    def _queue_decl(self, part: _KernelChunk, sf: SourceFile, decl: Node, ev: Evaluator) -> None:
        """A TQue/TQueBind/TBuf/TPipe declaration, in any of the forms `analysis.queues` reads."""
        t = decl.child_by_field_name("type")
        if t is None:
            return
        direct = queue_type_node(sf, t)
        if direct is not None:
            kind, arg_nodes = direct
            args = [self.expr(sf, a, ev) for a in arg_nodes]
        else:
            alias = self.queue_aliases.get(sf.node_text(unwrap_type(t)))
            if alias is None:
                return
            kind = alias.kind
            args = [make(Expr, text=a, value=_eval_text(a, ev.env, self.type_sizes), loc=None) for a in alias.args]
        if kind == "TPipe":
            part.pipes.extend(sf.node_text(d) for d, _ in declared_names(decl))
            return
        position = position_of(kind, [a.text for a in args])
        index = depth_index(kind)
        depth = None
        if index is not None:
            # AscendC's default depth is 1
            depth = args[index] if len(args) > index else make(Expr, text="", value=1, loc=None)
            if depth.value is None:
                value = ev.env.get(depth.text)
                depth.value = value if value is not None else member_constant(sf, decl, depth.text, ev.value)
        owner = _owner_class(sf, decl)
        for ident, size in declared_names(decl):
            part.queues.append(
                make(
                    QueueDecl,
                    name=sf.node_text(ident),
                    kind=kind,
                    position=position,
                    depth=depth.value if depth else None,
                    depth_expr=depth.text if depth else None,
                    owner=owner,
                    count=ev.value(size) if size is not None else None,
                    loc=self.nloc(sf, ident),
                )
            )

    def _api_calls(self, f: _FileFacts, part: _KernelChunk, user_functions: set[str]) -> None:
        sf = f.sf
        ev = self.evaluator(sf, "kernel")
        fn_cache: dict[int, tuple[str | None, str | None]] = {}
        loop_infos: dict[int, LoopInfo] = {}  # calls in one loop share its LoopInfo
        for call in f.caps.get("call", []):
            name, receiver, targs = self.call_parts(sf, call)
            is_api = name in FREE_APIS if receiver is None else (name in MEMBER_APIS or name in FREE_APIS)
            if not is_api and name not in user_functions:
                continue  # neither an AscendC call nor an edge of the kernel's own call graph
            fn_node, loops = _context(call)
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
                    info = loop_infos[lp.id] = make(
                        LoopInfo, kind=LOOP_TYPES[lp.type], header=_loop_header(sf, lp), loc=self.nloc(sf, lp)
                    )
                infos.append(info)
            api = make(
                ApiCall,
                name=name,
                receiver=receiver,
                template_args=targs,
                args=[_arg_expr(sf, a, call.start_byte) for a in _arg_nodes(call)],
                function=fn_name,
                owner=owner,
                loops=infos,
                in_loop=bool(loops),
                loc=self.nloc(sf, call),
            )
            part.by_name.setdefault(name, []).append(len(part.calls))
            part.by_owner.setdefault(owner, []).append(len(part.calls))
            part.calls.append((api, fn_name))
            if name == "InitBuffer":
                self._init_buffer(part, sf, api, call, ev)

    def _init_buffer(self, part: _KernelChunk, sf: SourceFile, api: ApiCall, call: Node, ev: Evaluator) -> None:
        nodes = _arg_nodes(call)
        if len(nodes) == 3:
            queue, num, size = (self.expr(sf, n, ev) for n in nodes)
        elif len(nodes) == 2:
            queue, size = (self.expr(sf, n, ev) for n in nodes)
            num = make(Expr, text="1", value=1, loc=None)
        else:
            return
        total = num.value * size.value if num.value is not None and size.value is not None else None
        part.init_buffers.append(
            make(
                InitBufferCall,
                queue=init_buffer_queue(queue.text),
                num=num,
                size=size,
                bytes=total,
                owner=api.owner,
                loc=api.loc,
            )
        )

    def _tiling_data(
        self, f: _FileFacts, part: _KernelChunk, chunk: Chunk, struct_names: frozenset[str], struct: str | None
    ) -> None:
        sf = f.sf
        for call in f.caps.get("call", []):
            name, receiver, _ = self.call_parts(sf, call)
            if receiver is not None or name not in _TILING_DATA_CALLS:
                continue
            args = _arg_nodes(call)
            if name in ("GET_TILING_DATA", "GET_TILING_DATA_WITH_STRUCT", "GET_TILING_DATA_PTR_WITH_STRUCT") and args:
                var_node = args[0] if name == "GET_TILING_DATA" else (args[1] if len(args) > 1 else args[0])
                var = sf.node_text(var_node)
                part.tiling_vars.add(var)
                part.data_uses.append(
                    make(
                        TilingDataUse,
                        var=var,
                        struct=sf.node_text(args[0]) if name != "GET_TILING_DATA" else struct,
                        loc=self.nloc(sf, call),
                    )
                )
            elif name == "TILING_KEY_IS" and args:
                ev = self.evaluator(sf, "kernel")
                part.key_branches.append(make(TilingKeyBranch, key=self.expr(sf, args[0], ev), loc=self.nloc(sf, call)))
        # Parameters and locals typed as the tiling struct also carry tiling data (`const FooTiling* t`).
        for decl in f.caps.get("decl", []) + f.caps.get("param", []):
            t = decl.child_by_field_name("type")
            if t is not None and sf.node_text(t).split("::")[-1].strip() in struct_names:
                for d in decl.children_by_field_name("declarator"):
                    part.tiling_vars.add(re.sub(r"[*&\s]|=.*", "", sf.node_text(d)))
        # Which of these read tiling data is known once the whole file's tiling variables are: keep them all.
        for fe in f.caps.get("field", []):
            arg = fe.child_by_field_name("argument")
            fld = fe.child_by_field_name("field")
            if arg is not None and fld is not None:
                part.field_uses.setdefault(sf.node_text(arg).replace("this->", ""), []).append(
                    (sf.node_text(fld), fld.start_byte - chunk.start, fld.end_byte - chunk.start)
                )


# ---- free helpers ------------------------------------------------------------------------------------------
def _declared_name(declarator: str) -> str:
    """The name a parameter declarator declares: its last word (`* const f`, `* __restrict__ d`, `&x` -> f, d, x)."""
    words = re.findall(r"[A-Za-z_]\w*", declarator)
    return words[-1] if words else ""


def _squash(text: str) -> str:
    return " ".join(text.split())


def _camel(snake: str) -> str:
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[_\-\s]+", snake) if p)


def _arg_expr(sf: SourceFile, node: Node, call_start: int) -> Expr:
    """An API call's argument; its offsets count from the call's start, so they stay true when the call moves."""
    value = parse_int_literal(sf.node_text(node)) if node.type == "number_literal" else None
    return make(
        Expr,
        text=_squash(sf.node_text(node)),
        value=value,
        loc=None,
        start=node.start_byte - call_start,
        end=node.end_byte - call_start,
    )


def _arg_nodes(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [a for a in args.named_children if a.type != "comment"] if args is not None else []


def _call_parts(sf: SourceFile, call: Node) -> tuple[str, str | None, str | None]:
    """(name, receiver text or None, template argument text or None) of a call expression."""
    fn = call.child_by_field_name("function")
    receiver = None
    if fn is None:
        return "", None, None
    if fn.type == "field_expression":
        receiver = sf.node_text(fn.child_by_field_name("argument"))
        fn = fn.child_by_field_name("field")
        if fn is not None and fn.type == "dependent_name":
            fn = fn.named_children[-1] if fn.named_children else fn
    while fn is not None and fn.type == "qualified_identifier":
        fn = fn.child_by_field_name("name")
    if fn is None:
        return "", receiver, None
    targs = None
    if fn.type in ("template_function", "template_method"):
        al = fn.child_by_field_name("arguments")
        targs = sf.node_text(al)[1:-1].strip() if al is not None else None
        fn = fn.child_by_field_name("name")
        while fn is not None and fn.type == "qualified_identifier":
            fn = fn.child_by_field_name("name")
    return (sf.node_text(fn) if fn is not None else ""), receiver, targs


def _flatten_chain(sf: SourceFile, call: Node) -> list[tuple[str, Node]]:
    """`this->Input("x").ParamType(R).DataType({...})` -> [(Input, args), (ParamType, args), (DataType, args)]."""
    chain: list[tuple[str, Node]] = []
    node = call
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
        return [_squash(sf.node_text(c)) for c in inner.named_children if c.type != "comment"]
    return [_squash(sf.node_text(inner))]


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
    return [_squash(sf.node_text(c)) for c in value.named_children if c.type != "comment"]


def _param_names(sf: SourceFile, fn: Node) -> list[str]:
    decl = function_declarator(fn)
    params = decl.child_by_field_name("parameters") if decl is not None else None
    out = []
    for p in params.named_children if params is not None else []:
        d = p.child_by_field_name("declarator")
        if p.type == "parameter_declaration" and d is not None:
            out.append(_declared_name(sf.node_text(d)))
    return out


def _function_name(sf: SourceFile, fn: Node | None) -> str | None:
    if fn is None:
        return None
    decl = function_declarator(fn)
    if decl is None:
        return None
    name = decl.child_by_field_name("declarator")
    if name is None:
        return None
    return sf.node_text(name).split("::")[-1].strip()


def _owner_class(sf: SourceFile, node: Node | None) -> str | None:
    n = node
    while n is not None:
        if n.type in ("class_specifier", "struct_specifier"):
            name = n.child_by_field_name("name")
            return sf.node_text(name) if name is not None else None
        if n.type == "function_definition":
            decl = function_declarator(n)
            inner = decl.child_by_field_name("declarator") if decl is not None else None
            if inner is not None and inner.type == "qualified_identifier":
                scope = inner.child_by_field_name("scope")
                if scope is not None:
                    return sf.node_text(scope).split("<")[0]
        n = n.parent
    return None


def _fn_info(sf: SourceFile, fn: Node | None, cache: dict) -> tuple[str | None, str | None]:
    if fn is None:
        return None, None
    key = (sf.path, fn.id)
    if key not in cache:
        cache[key] = (_function_name(sf, fn), _owner_class(sf, fn))
    return cache[key]


def _context(node: Node) -> tuple[Node | None, list[Node]]:
    """The enclosing function definition and the loops between it and node, innermost first."""
    loops = []
    n = node.parent
    while n is not None:
        if n.type in LOOP_TYPES:
            loops.append(n)
        elif n.type in ("function_definition", "lambda_expression"):
            return (n if n.type == "function_definition" else _enclosing_function(n)), loops
        n = n.parent
    return None, loops


def _loop_header(sf: SourceFile, loop: Node) -> str:
    body = loop.child_by_field_name("body")
    end = body.start_byte if body is not None else loop.end_byte
    return _squash(sf.slice(loop.start_byte, end))[:120]


def _literal_node(node: Node) -> Node | None:
    """The integer literal that sets a constant's value, through casts, parentheses and a unary minus."""
    while node is not None:
        if node.type == "number_literal":
            return node
        if node.type in ("parenthesized_expression",):
            node = node.named_children[0] if node.named_children else None
        elif node.type == "cast_expression":
            node = node.child_by_field_name("value")
        elif node.type == "call_expression" and _arg_nodes(node) and len(_arg_nodes(node)) == 1:
            node = _arg_nodes(node)[0]  # static_cast<uint32_t>(8), uint32_t(8)
        else:
            return None
    return None


_LITERAL_IN_RE = re.compile(r"^\(?\s*(\(\s*[A-Za-z_][\w:]*\s*\))?\s*(?P<num>0[xX][0-9a-fA-F]+|\d+)[uUlL]*\s*\)?$")


def _literal_in(raw: str) -> tuple[int, int, int] | None:
    """(value, offset, length) of the literal in a #define body such as `8`, `(8U)` or `(uint32_t)8`."""
    m = _LITERAL_IN_RE.match(raw.strip())
    if not m:
        return None
    lead = len(raw) - len(raw.lstrip())
    return parse_int_literal(m.group("num")), lead + m.start("num"), len(m.group("num"))


def _eval_text(text: str, env: dict[str, int], type_sizes: dict[str, int]) -> int | None:
    sf = SourceFile("<expr>", f"auto __v = {text};")
    decl = sf.tree.root_node.named_children[0] if sf.tree.root_node.named_children else None
    if decl is None or decl.type != "declaration":
        return None
    init = decl.child_by_field_name("declarator")
    value = init.child_by_field_name("value") if init is not None else None
    return Evaluator(sf.node_text, env, type_sizes).value(value)


def _knob_side(f: _FileFacts, node: Node, layout: str) -> str:
    if layout != "invocation":
        return f.side
    fn = _enclosing_function(node)
    if fn is None:
        return "kernel"
    head = (fn.start_byte, (fn.child_by_field_name("declarator") or fn).start_byte)
    return "kernel" if f.sf.has_qualifier(*head, "__aicore__") else "host"


def build_model(project: OperatorProject, sources: dict[str, SourceFile]) -> OperatorModel:
    return ModelBuilder(project, sources).build()
