"""The typed operator model: everything the sources say about one AscendC operator.

Built by `analysis.extract`; read by the lint rules, the CLI (`tilewise inspect`), and later the emulator and tuner.

The records are slotted dataclasses: the extractor builds thousands per file on every keystroke, and plain
constructors are several times cheaper than pydantic's validation (values come from tilewise itself, never from
users, so there is nothing to validate). Pydantic stays at the boundary: `model_json` serialises a model for
`tilewise inspect --format json`, leaving out the byte offsets marked `_HIDDEN`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Literal, NamedTuple

from pydantic import Field, TypeAdapter

# Byte offsets and caches: kept for edits and lookups, left out of the JSON a user or a client reads.
_HIDDEN = Field(exclude=True)

Side = Literal["host", "kernel"]  # which side of the operator a file, or a constant, belongs to
# `platform`: what the tiling function is told about the chip (core count, UB size), capped by the tuner;
# `tiling_literal`: an integer literal inside a tiling function that flows into what it sets.
KnobKind = Literal["define", "constexpr", "const", "set_block_dim", "launch", "platform", "tiling_literal"]
KnobRole = Literal["block_dim", "buffer_num", "tile", "divisor", "cap", "other"]


@dataclass(slots=True, kw_only=True)
class Loc:
    """A range in a file: 1-based lines, 1-based columns in characters, plus byte offsets for edits."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    start: Annotated[int, _HIDDEN] = 0
    end: Annotated[int, _HIDDEN] = 0


@dataclass(slots=True, kw_only=True)
class Expr:
    """A source expression, with its value when it evaluates to a constant integer.

    API-call arguments carry only byte offsets, counted from the start of their call (`loc` None, `value` only for
    literals): there are thousands of them and most are never looked at, and offsets relative to the call stay true
    when an edit above moves it. Tiling, buffer and launch expressions get a full `loc` and value."""

    text: str
    value: int | None = None
    loc: Loc | None = None
    start: Annotated[int, _HIDDEN] = 0
    end: Annotated[int, _HIDDEN] = 0


@dataclass(slots=True, kw_only=True)
class TensorParam:
    name: str
    param_type: str = "REQUIRED"
    dtypes: list[str] = field(default_factory=list)
    dtype_note: str | None = None  # why `dtypes` is empty when the OpDef's list could not be read (a helper call)
    formats: list[str] = field(default_factory=list)
    loc: Loc | None = None


@dataclass(slots=True, kw_only=True)
class AttrDef:
    name: str
    type: str = "unknown"  # Float | Int | Bool | String | ListInt | ListFloat | ...
    required: bool = False
    default: str | None = None
    loc: Loc | None = None


@dataclass(slots=True, kw_only=True)
class OpDef:
    name: str
    inputs: list[TensorParam] = field(default_factory=list)
    outputs: list[TensorParam] = field(default_factory=list)
    attrs: list[AttrDef] = field(default_factory=list)
    tiling_func: str | None = None
    infer_shape: str | None = None
    infer_dtype: str | None = None
    configs: list[str] = field(default_factory=list)
    loc: Loc | None = None


@dataclass(slots=True, kw_only=True)
class TilingField:
    name: str
    type: str
    array_len: int | None = None
    struct_type: str | None = None
    loc: Loc


@dataclass(slots=True, kw_only=True)
class TilingStruct:
    name: str
    op_type: str | None = None
    fields: list[TilingField] = field(default_factory=list)
    loc: Loc


@dataclass(slots=True, kw_only=True)
class SetterCall:
    field: str
    expr: Expr
    loc: Loc


@dataclass(slots=True, kw_only=True)
class TilingFunction:
    name: str
    loc: Loc
    block_dim: list[Expr] = field(default_factory=list)
    setters: list[SetterCall] = field(default_factory=list)
    tiling_keys: list[Expr] = field(default_factory=list)
    workspace: list[Expr] = field(default_factory=list)
    uses_platform: bool = False


@dataclass(slots=True, kw_only=True)
class KernelParam:
    type: str  # as written, without the `__gm__` the parser does not see (`float*` for `__gm__ float* x`)
    name: str
    gm: bool = False  # a pointer into global memory: `GM_ADDR x`, `__gm__ float* x`, `const __gm__ uint8_t* x`

    @property
    def is_gm(self) -> bool:
        """Whether the kernel gets a GM tensor here, in any of the forms a kernel declares one."""
        return self.gm or "GM_ADDR" in self.type


@dataclass(slots=True, kw_only=True)
class KernelEntry:
    name: str
    file: str
    params: list[KernelParam] = field(default_factory=list)
    has_aicore: bool = True
    has_global: bool = True
    loc: Loc


@dataclass(slots=True, kw_only=True)
class KernelClass:
    name: str
    template_params: list[str] = field(default_factory=list)
    methods: list[str] = field(default_factory=list)
    loc: Loc


@dataclass(slots=True, kw_only=True)
class QueueDecl:
    name: str
    kind: Literal["TQue", "TQueBind", "TBuf"]
    position: str | None = None  # VECIN, VECOUT, VECCALC, ... (src->dst for TQueBind)
    depth: int | None = None  # the depth template argument, when it evaluates
    depth_expr: str | None = None
    owner: str | None = None  # enclosing class
    count: int | None = None  # an array of queues (`TQue<...> inQueues[3];`): its length, when it evaluates
    loc: Loc


@dataclass(slots=True, kw_only=True)
class InitBufferCall:
    queue: str
    num: Expr
    size: Expr
    bytes: int | None = None  # num * size when both evaluate
    owner: str | None = None
    loc: Loc


@dataclass(slots=True, kw_only=True)
class LoopInfo:
    kind: Literal["for", "while", "do"]
    header: str
    loc: Loc


@dataclass(slots=True, kw_only=True)
class ApiCall:
    name: str
    receiver: str | None = None
    template_args: str | None = None
    args: list[Expr] = field(default_factory=list)
    function: str | None = None  # enclosing function or method
    owner: str | None = None  # enclosing class
    loops: list[LoopInfo] = field(default_factory=list)  # lexically enclosing loops, innermost first
    in_loop: bool = False  # lexically, or because a caller calls its function from a loop
    loc: Loc


@dataclass(slots=True, kw_only=True)
class TilingDataUse:
    var: str
    struct: str | None = None
    loc: Loc


@dataclass(slots=True, kw_only=True)
class TilingRead:
    var: str
    field: str
    loc: Loc


@dataclass(slots=True, kw_only=True)
class TilingKeyBranch:
    key: Expr
    loc: Loc


@dataclass(slots=True, kw_only=True)
class Knob:
    """An integer constant that decides the tiling, and where its literal stands so a tuner can rewrite it."""

    name: str
    value: int
    file: str
    line: int
    col: int
    kind: KnobKind
    side: Side
    role: KnobRole = "other"
    domain: list[int] | None = None  # from a `// tilewise: tune NAME in [...]` annotation
    tuned: bool = False  # `// tilewise: tuned` on its line: a measured choice the rules leave alone
    literal: Loc
    # For the tiling function's knobs: the statement the literal or query stands in, as the user reads it, and the
    # variable a platform query's answer is stored in (where `tune --apply` puts its clamp).
    context: str = ""
    target: str | None = None


@dataclass(slots=True, kw_only=True)
class Launch:
    kernel: str
    block_dim: Expr
    loc: Loc


@dataclass(slots=True, kw_only=True)
class Kernel:
    entry: str | None = None
    file: str | None = None
    entries: list[KernelEntry] = field(default_factory=list)
    classes: list[KernelClass] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class Tiling:
    struct: str | None = None
    fields: list[TilingField] = field(default_factory=list)
    structs: list[TilingStruct] = field(default_factory=list)
    function: str | None = None
    functions: list[TilingFunction] = field(default_factory=list)


@dataclass(slots=True, kw_only=True)
class Problem:
    """Something that stopped part of the model from being built, as a one-line message."""

    file: str
    line: int = 0
    message: str


class _CallIndex(NamedTuple):
    """`api_calls` as it was indexed (its id and length: a replaced or grown list is indexed again), and the index
    from API name, and from class, to positions in it."""

    calls_id: int
    length: int
    by_name: dict[str, list[int]]
    by_owner: dict[str | None, list[int]]


@dataclass(slots=True, kw_only=True)
class OperatorModel:
    operator: str
    layout: Literal["project", "invocation", "atb"]
    root: str
    files: list[str] = field(default_factory=list)
    host_files: list[str] = field(default_factory=list)
    kernel_files: list[str] = field(default_factory=list)
    opdef: OpDef | None = None
    inputs: list[TensorParam] = field(default_factory=list)
    outputs: list[TensorParam] = field(default_factory=list)
    attrs: list[AttrDef] = field(default_factory=list)
    kernel: Kernel = field(default_factory=Kernel)
    tiling: Tiling = field(default_factory=Tiling)
    pipes: list[str] = field(default_factory=list)  # TPipe objects
    queues: list[QueueDecl] = field(default_factory=list)
    init_buffers: list[InitBufferCall] = field(default_factory=list)
    api_calls: list[ApiCall] = field(default_factory=list)
    tiling_data_uses: list[TilingDataUse] = field(default_factory=list)
    tiling_reads: list[TilingRead] = field(default_factory=list)
    tiling_key_branches: list[TilingKeyBranch] = field(default_factory=list)
    launches: list[Launch] = field(default_factory=list)
    knobs: list[Knob] = field(default_factory=list)
    # Knobs inside the tiling function (platform queries, literals that decide the tiling): the tuner's, kept apart
    # from `knobs` because the lint rules reason about named constants only.
    tiling_knobs: list[Knob] = field(default_factory=list)
    syntax_errors: list[Loc] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    _call_index: Annotated[_CallIndex | None, _HIDDEN] = field(default=None, init=False, repr=False, compare=False)

    def set_call_index(self, by_name: dict[str, list[int]], by_owner: dict[str | None, list[int]]) -> None:
        """The builder knows both indexes already (kept per chunk): hand them over instead of rebuilding them."""
        self._call_index = _CallIndex(id(self.api_calls), len(self.api_calls), by_name, by_owner)

    def _index(self) -> tuple[dict[str, list[int]], dict[str | None, list[int]]]:
        index = self._call_index
        if index is not None and index.calls_id == id(self.api_calls) and index.length == len(self.api_calls):
            return index.by_name, index.by_owner
        by_name: dict[str, list[int]] = {}
        by_owner: dict[str | None, list[int]] = {}
        for i, c in enumerate(self.api_calls):
            by_name.setdefault(c.name, []).append(i)
            by_owner.setdefault(c.owner, []).append(i)
        self.set_call_index(by_name, by_owner)
        return by_name, by_owner

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
        return next((k for k in self.knobs if k.name == name), None) or next(
            (k for k in self.tiling_knobs if k.name == name), None
        )


@cache
def _adapter() -> TypeAdapter[OperatorModel]:
    return TypeAdapter(OperatorModel)  # (built on first use: only `inspect --format json` needs it)


def model_json(model: OperatorModel) -> dict[str, Any]:
    """The model as JSON data, as `tilewise inspect --format json` prints it (byte offsets and caches left out)."""
    return _adapter().dump_python(model, mode="json")
