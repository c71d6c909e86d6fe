"""The typed operator model: everything the sources say about one AscendC operator.

Built by `analysis.extract`; read by the lint rules, the CLI (`tilewise inspect`), and later the emulator and tuner.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, PrivateAttr


class Loc(BaseModel):
    """A range in a file: 1-based lines, 1-based columns in characters, plus byte offsets for edits."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    start: int = Field(0, exclude=True)
    end: int = Field(0, exclude=True)


class Expr(BaseModel):
    """A source expression, with its value when it evaluates to a constant integer.

    API-call arguments carry only byte offsets, counted from the start of their call (`loc` None, `value` only for
    literals): there are thousands of them and most are never looked at, and offsets relative to the call stay true
    when an edit above moves it. Tiling, buffer and launch expressions get a full `loc` and value."""

    text: str
    value: int | None = None
    loc: Loc | None = None
    start: int = Field(0, exclude=True)
    end: int = Field(0, exclude=True)


class TensorParam(BaseModel):
    name: str
    param_type: str = "REQUIRED"
    dtypes: list[str] = []
    dtype_note: str | None = None  # why `dtypes` is empty when the OpDef's list could not be read (a helper call)
    formats: list[str] = []
    loc: Loc | None = None


class AttrDef(BaseModel):
    name: str
    type: str = "unknown"  # Float | Int | Bool | String | ListInt | ListFloat | ...
    required: bool = False
    default: str | None = None
    loc: Loc | None = None


class OpDef(BaseModel):
    name: str
    inputs: list[TensorParam] = []
    outputs: list[TensorParam] = []
    attrs: list[AttrDef] = []
    tiling_func: str | None = None
    infer_shape: str | None = None
    infer_dtype: str | None = None
    configs: list[str] = []
    loc: Loc | None = None


class TilingField(BaseModel):
    name: str
    type: str
    array_len: int | None = None
    struct_type: str | None = None
    loc: Loc


class TilingStruct(BaseModel):
    name: str
    op_type: str | None = None
    fields: list[TilingField] = []
    loc: Loc


class SetterCall(BaseModel):
    field: str
    expr: Expr
    loc: Loc


class TilingFunction(BaseModel):
    name: str
    loc: Loc
    block_dim: list[Expr] = []
    setters: list[SetterCall] = []
    tiling_keys: list[Expr] = []
    workspace: list[Expr] = []
    uses_platform: bool = False


class KernelParam(BaseModel):
    type: str  # as written, without the `__gm__` the parser does not see (`float*` for `__gm__ float* x`)
    name: str
    gm: bool = False  # a pointer into global memory: `GM_ADDR x`, `__gm__ float* x`, `const __gm__ uint8_t* x`

    @property
    def is_gm(self) -> bool:
        """Whether the kernel gets a GM tensor here, in any of the forms a kernel declares one."""
        return self.gm or "GM_ADDR" in self.type


class KernelEntry(BaseModel):
    name: str
    file: str
    params: list[KernelParam] = []
    has_aicore: bool = True
    has_global: bool = True
    loc: Loc


class KernelClass(BaseModel):
    name: str
    template_params: list[str] = []
    methods: list[str] = []
    loc: Loc


class QueueDecl(BaseModel):
    name: str
    kind: Literal["TQue", "TQueBind", "TBuf"]
    position: str | None = None  # VECIN, VECOUT, VECCALC, ... (src->dst for TQueBind)
    depth: int | None = None  # the depth template argument, when it evaluates
    depth_expr: str | None = None
    owner: str | None = None  # enclosing class
    count: int | None = None  # an array of queues (`TQue<...> inQueues[3];`): its length, when it evaluates
    loc: Loc


class InitBufferCall(BaseModel):
    queue: str
    num: Expr
    size: Expr
    bytes: int | None = None  # num * size when both evaluate
    owner: str | None = None
    loc: Loc


class LoopInfo(BaseModel):
    kind: Literal["for", "while", "do"]
    header: str
    loc: Loc


class ApiCall(BaseModel):
    name: str
    receiver: str | None = None
    template_args: str | None = None
    args: list[Expr] = []
    function: str | None = None  # enclosing function or method
    owner: str | None = None  # enclosing class
    loops: list[LoopInfo] = []  # lexically enclosing loops, innermost first
    in_loop: bool = False  # lexically, or because a caller calls its function from a loop
    loc: Loc


class TilingDataUse(BaseModel):
    var: str
    struct: str | None = None
    loc: Loc


class TilingRead(BaseModel):
    var: str
    field: str
    loc: Loc


class TilingKeyBranch(BaseModel):
    key: Expr
    loc: Loc


class Knob(BaseModel):
    """An integer constant that decides the tiling, and where its literal stands so a tuner can rewrite it."""

    name: str
    value: int
    file: str
    line: int
    col: int
    kind: Literal["define", "constexpr", "const", "set_block_dim", "launch"]
    side: Literal["host", "kernel"]
    role: Literal["block_dim", "buffer_num", "tile", "other"] = "other"
    domain: list[int] | None = None  # from a `// tilewise: tune NAME in [...]` annotation
    tuned: bool = False  # `// tilewise: tuned` on its line: a measured choice the rules leave alone
    literal: Loc


class Launch(BaseModel):
    kernel: str
    block_dim: Expr
    loc: Loc


class Kernel(BaseModel):
    entry: str | None = None
    file: str | None = None
    entries: list[KernelEntry] = []
    classes: list[KernelClass] = []


class Tiling(BaseModel):
    struct: str | None = None
    fields: list[TilingField] = []
    structs: list[TilingStruct] = []
    function: str | None = None
    functions: list[TilingFunction] = []


class Problem(BaseModel):
    """Something that stopped part of the model from being built, as a one-line message."""

    file: str
    line: int = 0
    message: str


class OperatorModel(BaseModel):
    operator: str
    layout: Literal["project", "invocation", "atb"]
    root: str
    files: list[str] = []
    host_files: list[str] = []
    kernel_files: list[str] = []
    opdef: OpDef | None = None
    inputs: list[TensorParam] = []
    outputs: list[TensorParam] = []
    attrs: list[AttrDef] = []
    kernel: Kernel = Kernel()
    tiling: Tiling = Tiling()
    pipes: list[str] = []  # TPipe objects
    queues: list[QueueDecl] = []
    init_buffers: list[InitBufferCall] = []
    api_calls: list[ApiCall] = []
    tiling_data_uses: list[TilingDataUse] = []
    tiling_reads: list[TilingRead] = []
    tiling_key_branches: list[TilingKeyBranch] = []
    launches: list[Launch] = []
    knobs: list[Knob] = []
    syntax_errors: list[Loc] = []
    problems: list[Problem] = []

    # (id, length) of `api_calls` when indexed, then API name -> positions in it, and class -> positions
    _call_index: tuple[int, int, dict[str, list[int]], dict[str | None, list[int]]] | None = PrivateAttr(None)

    def set_call_index(self, by_name: dict[str, list[int]], by_owner: dict[str | None, list[int]]) -> None:
        """The builder knows both indexes already (kept per chunk): hand them over instead of rebuilding them."""
        self._call_index = (id(self.api_calls), len(self.api_calls), by_name, by_owner)

    def _index(self) -> tuple[dict[str, list[int]], dict[str | None, list[int]]]:
        index = self._call_index
        if index is None or index[0] != id(self.api_calls) or index[1] != len(self.api_calls):
            by_name: dict[str, list[int]] = {}
            by_owner: dict[str | None, list[int]] = {}
            for i, c in enumerate(self.api_calls):
                by_name.setdefault(c.name, []).append(i)
                by_owner.setdefault(c.owner, []).append(i)
            self.set_call_index(by_name, by_owner)
            index = self._call_index
        return index[2], index[3]

    def calls(self, *names: str) -> list[ApiCall]:
        """The calls of these APIs, in source order (indexed once: every rule asks, and a kernel has thousands)."""
        by_name = self._index()[0]
        found = [i for name in dict.fromkeys(names) for i in by_name.get(name, [])]
        if len(names) > 1:
            found.sort()
        return [self.api_calls[i] for i in found]

    def calls_in(self, owner: str | None) -> list[ApiCall]:
        """The API calls of one kernel class (None: outside any class), in source order."""
        return [self.api_calls[i] for i in self._index()[1].get(owner, [])]

    def knob(self, name: str) -> Knob | None:
        return next((k for k in self.knobs if k.name == name), None)


_DEFAULTS: dict[type, tuple[dict[str, object], dict[str, object]]] = {}
_set = object.__setattr__


def make(cls: type[BaseModel], **values):
    """Construct a model from values tilewise computed itself, skipping validation.

    The extractor builds thousands of these per file and pydantic's `model_construct` is slower than validation.
    Values must already have the right types; anything read from users goes through validation instead.
    """
    plain, factories = _DEFAULTS.get(cls) or _defaults(cls)
    if len(values) < len(plain) + len(factories):
        for name, default in plain.items():
            values.setdefault(name, default)
        for name, factory in factories.items():
            if name not in values:
                values[name] = factory()
    obj = cls.__new__(cls)
    _set(obj, "__dict__", values)
    _set(obj, "__pydantic_fields_set__", set())
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


def _defaults(cls: type[BaseModel]) -> tuple[dict[str, object], dict[str, object]]:
    plain: dict[str, object] = {}
    factories: dict[str, object] = {}
    for name, f in cls.model_fields.items():
        if f.default_factory is not None:
            factories[name] = f.default_factory
        elif isinstance(f.default, list | dict):
            factories[name] = type(f.default)
        elif f.is_required():
            continue
        else:
            plain[name] = f.default
    _DEFAULTS[cls] = (plain, factories)
    return plain, factories
