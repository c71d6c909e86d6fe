"""Hand-slowed operators written blind (issue 32): slowdowns in the spellings real AscendC developers use.

benchmarks/bank.py slows operators with its own recipes; those were written while the detectors were being built
and in the spellings the development corpus uses. The recipes here were written before looking at what the
detectors find, to fit the test partition's operators (ops-nn, the learning hub, cann-bench) as well as the
development ones, in spellings unlike bank.py's: a per-element loop that casts through float, a clamp as an if-chain,
the core count fixed in a local of the host tiling, a one-deep queue whose depth is an enum or a class member, the
UB or a tile constant cut by a divisor, full barriers spelled `AscendC::PipeBarrier<PIPE_ALL>()` or
`pipe_barrier(PIPE_ALL)`, an output copy made padded, reloaded or cut into pieces, and a cast rounded twice.

Each recipe maps an operator to the slowed texts of the files it changed (an overlay, as bank.py's do), or None
where it does not fit; its docstring names the motif that should undo it. Every recipe keeps the results the same
(it changes how the work is done, never what is computed); bank.py checks that on every case and reports a recipe
application that breaks an operator apart.

    from benchmarks.blind_recipes import RECIPES     # name -> (motif, recipe)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from benchmarks.blind_edits import (
    Edits,
    Statement,
    call_args,
    call_statement,
    class_body_start,
    data_of,
    element_type,
    fresh_name,
    function_body_start,
    global_tensors,
    is_gm,
    kernel_calls,
    line_break_after,
    node_at,
    shifted,
    statement,
    tensor_parts,
)
from tilewise.analysis.model import ApiCall
from tilewise.analysis.operator import Operator

Recipe = Callable[[Operator], dict[str, str] | None]  # the slowed texts of the files it changed, or None

_FLOATING = {"half", "float", "bfloat16_t"}
_NOT_NARROW = {"float", "int32_t", "uint32_t", "int64_t", "uint64_t", "int16_t", "uint16_t", "int8_t", "uint8_t"}


def _sites(op: Operator, *names: str) -> list[tuple[ApiCall, Statement, list[str]]]:
    """The in-loop kernel calls of these APIs that are whole statements, with their arguments."""
    out = []
    for call in kernel_calls(op, *names):
        if not call.in_loop:
            continue
        st = call_statement(op, call)
        args = call_args(op, st) if st is not None else None
        if st is not None and args is not None:
            out.append((call, st, args))
    return out


def _first_function(sites: list, key: Callable = lambda s: (s[0].loc.file, s[0].function, s[0].owner)) -> list:
    """The sites of the first function that has any (a developer writes the slow loop in one compute routine, with
    one copy per dtype branch there)."""
    return [s for s in sites if key(s) == key(sites[0])] if sites else []


def _block(indent: str, lines: list[str]) -> str:
    """Lines as a block that replaces a statement: the first continues the statement's line, the rest are
    indented like it."""
    return lines[0] + "".join(f"\n{indent}{line}" if line else "\n" for line in lines[1:])


def _free(word: str, *texts: str) -> str:
    """`word`, or a longer one that none of the texts uses (an index must not shadow what the count reads)."""
    while any(re.search(rf"\b{word}\b", t) for t in texts):
        word += word[-1]
    return word


_V_S = [
    "AscendC::SetFlag<AscendC::HardEvent::V_S>(EVENT_ID0);",
    "AscendC::WaitFlag<AscendC::HardEvent::V_S>(EVENT_ID0);",
]
_S_V = [
    "AscendC::SetFlag<AscendC::HardEvent::S_V>(EVENT_ID0);",
    "AscendC::WaitFlag<AscendC::HardEvent::S_V>(EVENT_ID0);",
]


# ---- vector-not-scalar ---------------------------------------------------------------------------------------------

_BINARY = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "Max": ">", "Min": "<"}


def float_cast_scalar_loop(op: Operator) -> dict[str, str] | None:
    """vector-not-scalar: the binary vector calls (Add, Sub, Mul, Div, Max, Min of two tensors) of the first compute
    routine that has one become a per-element loop that reads both operands through float and writes back with a
    C-style cast, `z.SetValue(k, (T)((float)x.GetValue(k) + (float)y.GetValue(k)))`, fenced by V_S and S_V events."""
    gm = global_tensors(op)
    sites = []
    for call, st, args in _sites(op, *_BINARY):
        if len(args) != 4 or any(tensor_parts(a) is None or is_gm(a, gm) for a in args[:3]):
            continue
        types = [element_type(op, st.file, st.start, a) for a in args[:3]]
        if None in types:
            continue
        sites.append((call, st, args, types[0]))
    edits = Edits(op)
    for call, st, (dst, a, b, n), t in _first_function(sites):
        k = _free("k", dst, a, b, n)
        if _BINARY[call.name] in "<>":
            lhs, rhs = _free("lhs", a, b), _free("rhs", a, b)
            body = [
                f"    float {lhs} = (float){a}.GetValue({k});",
                f"    float {rhs} = (float){b}.GetValue({k});",
                f"    {dst}.SetValue({k}, ({t})({lhs} {_BINARY[call.name]} {rhs} ? {lhs} : {rhs}));",
            ]
        else:
            value = f"(float){a}.GetValue({k}) {_BINARY[call.name]} (float){b}.GetValue({k})"
            body = [f"    {dst}.SetValue({k}, ({t})({value}));"]
        loop = [f"for (int32_t {k} = 0; {k} < static_cast<int32_t>({n}); {k}++) {{", *body, "}"]
        lines = ["{", *("    " + x for x in [*_V_S, *loop, *_S_V]), "}"]
        edits.replace(st.file, st.start, st.end, _block(st.indent, lines))
    return edits.overlay()


def clamp_if_chain(op: Operator) -> dict[str, str] | None:
    """vector-not-scalar: the clamps of the first compute routine that has one, written per element: `Maxs` and
    `Mins` (a `Maxs` followed by a `Mins` of its result is one clamp) become an if-chain on a float copy of the
    element, `Relu` a ternary `v > 0 ? v : 0`."""
    gm = global_tensors(op)
    sites = []
    for call, st, args in _sites(op, "Maxs", "Mins", "Relu"):
        want = 3 if call.name == "Relu" else 4
        if len(args) != want or any(tensor_parts(a) is None or is_gm(a, gm) for a in args[:2]):
            continue
        t = element_type(op, st.file, st.start, args[0])
        if t is None or element_type(op, st.file, st.start, args[1]) is None:
            continue
        sites.append((call, st, args, t))
    edits = Edits(op)
    group = _first_function(sites)
    i = 0
    while i < len(group):
        call, st, args, t = group[i]
        dst, src, n = args[0], args[1], args[-1]
        steps = [(call.name, args[2])] if call.name != "Relu" else []
        end = st.end
        if i + 1 < len(group) and call.name in ("Maxs", "Mins"):
            call2, st2, args2, _ = group[i + 1]
            between = data_of(op, st.file)[st.end : st2.start].strip()
            if call2.name in ("Maxs", "Mins") and call2.name != call.name and not between and args2[1] == dst:
                steps.append((call2.name, args2[2]))
                dst, end, i = args2[0], st2.end, i + 1
        k = _free("k", dst, src, n)
        v = _free("v", dst, src, n, *(s for _, s in steps))
        body = [f"    float {v} = (float){src}.GetValue({k});"]
        for name, bound in steps:
            cmp = "<" if name == "Maxs" else ">"
            body += [f"    if ({v} {cmp} (float)({bound})) {{", f"        {v} = (float)({bound});", "    }"]
        if call.name == "Relu":
            body.append(f"    {dst}.SetValue({k}, {v} > 0.0f ? ({t}){v} : ({t})0.0f);")
        else:
            body.append(f"    {dst}.SetValue({k}, ({t}){v});")
        loop = [f"for (uint32_t {k} = 0; {k} < static_cast<uint32_t>({n}); ++{k}) {{", *body, "}"]
        lines = ["{", *("    " + x for x in [*_V_S, *loop, *_S_V]), "}"]
        edits.replace(st.file, st.start, end, _block(st.indent, lines))
        i += 1
    return edits.overlay()


# ---- all-cores -----------------------------------------------------------------------------------------------------


def aiv_num_local(op: Operator) -> dict[str, str] | None:
    """all-cores: the host tiling asks the platform for the vector cores and then fixes the count in a local: a
    declaration `uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();` becomes `uint32_t coreNum = 2U;`, an assignment
    gets `auto aivNum = 2;` on the line before and `coreNum = aivNum;`. The tiling then splits the work over 2
    cores by its own logic and hands SetBlockDim what it computed."""
    edits = Edits(op)
    taken: set[str] = set()
    for knob in op.model.tiling_knobs:
        if knob.name != "platform.cores" or knob.file not in op.sources:
            continue
        st = statement(op, knob.file, knob.literal.start)
        if st is None:
            continue
        if data_of(op, knob.file)[st.end - 1 : st.end] != b";":
            continue
        decl = _declares(op, st)
        if decl:
            edits.replace(knob.file, knob.literal.start, knob.literal.end, "2U")
            continue
        name = fresh_name(op, knob.file, "aivNum")
        while name in taken:
            name += "_"
        taken.add(name)
        if edits.insert(knob.file, st.line_start, f"{st.indent}auto {name} = 2;\n"):
            edits.replace(knob.file, knob.literal.start, knob.literal.end, name)
    return edits.overlay()


def _declares(op: Operator, st: Statement) -> bool:
    node = node_at(op, st.file, st.start)
    while node is not None and node.start_byte == st.start and node.type != "declaration":
        node = node.parent
    return node is not None and node.type == "declaration" and node.start_byte == st.start


def used_cores_local(op: Operator) -> dict[str, str] | None:
    """all-cores: a launch whose block count is a constant (`SetBlockDim(8)`, `SetBlockDim(BLOCK_DIM)`, a
    `<<<blockDim, ...>>>` of a constexpr) in a kernel that splits its work by `GetBlockNum()` gets its count from a
    local `uint32_t usedCores = 4;` declared on the line before."""
    if not any(c.name == "GetBlockNum" for c in kernel_calls(op, "GetBlockNum")):
        return None
    exprs = [e for f in op.model.tiling.functions for e in f.block_dim] + [la.block_dim for la in op.model.launches]
    edits = Edits(op)
    for e in exprs:
        value = e.value
        if value is None:
            knob = op.model.knob(e.text.strip())
            value = knob.value if knob is not None and knob.role == "block_dim" else None
        if value is None or value <= 4 or e.loc is None or e.loc.file not in op.sources:
            continue
        st = statement(op, e.loc.file, e.start)
        if st is None:
            continue
        name = fresh_name(op, e.loc.file, "usedCores")
        if edits.insert(e.loc.file, st.line_start, f"{st.indent}uint32_t {name} = 4;\n"):
            edits.replace(e.loc.file, e.start, e.end, name)
    return edits.overlay()


# ---- large-tiles ---------------------------------------------------------------------------------------------------


def ub_split_eightfold(op: Operator) -> dict[str, str] | None:
    """large-tiles: right after the host tiling asks for the UB size, it keeps an eighth of it, `ubSize = ubSize /
    8;` (as if reserving the rest), so every tile it derives from the UB is an eighth as long."""
    edits = Edits(op)
    for knob in op.model.tiling_knobs:
        target = knob.target
        if knob.name != "platform.ub_bytes" or not target or knob.file not in op.sources:
            continue
        if not re.fullmatch(r"[\w.>\-]+", target) or re.search(
            rf"\bconst(?:expr)?\b[^;={{}}]*\b{re.escape(target)}\s*[=({{]", op.sources[knob.file].text
        ):
            continue
        st = statement(op, knob.file, knob.literal.start)
        if st is None:
            continue
        edits.insert(knob.file, line_break_after(op, st), f"{st.indent}{target} = {target} / 8;\n")
    return edits.overlay()


def tile_constant_divided(op: Operator) -> dict[str, str] | None:
    """large-tiles: every named tile-length constant of 1024 or more (a multiple of 256) is written as an eighth of
    itself, `constexpr uint32_t TILE_LEN = (4096 / 8);` (host and kernel alike, so the two stay in step)."""
    edits = Edits(op)
    for knob in op.model.knobs:
        if knob.role != "tile" or knob.kind not in ("const", "constexpr", "define") or knob.file not in op.sources:
            continue
        if knob.value < 1024 or knob.value % 256 or knob.tuned:
            continue
        literal = data_of(op, knob.file)[knob.literal.start : knob.literal.end].decode()
        edits.replace(knob.file, knob.literal.start, knob.literal.end, f"({literal} / 8)")
    return edits.overlay()


# ---- pipe-sync -----------------------------------------------------------------------------------------------------


def barrier_before_enque(op: Operator) -> dict[str, str] | None:
    """pipe-sync: the compute stage (a function in the tile loop that hands a tensor on with EnQue and copies
    nothing itself) waits for every pipe before each EnQue, `AscendC::PipeBarrier<PIPE_ALL>();`."""
    copying = {(c.loc.file, c.function, c.owner) for c in kernel_calls(op, "DataCopy", "DataCopyPad")}
    edits = Edits(op)
    for call, st, _ in _sites(op, "EnQue"):
        if (call.loc.file, call.function, call.owner) in copying:
            continue
        edits.insert(st.file, st.line_start, f"{st.indent}AscendC::PipeBarrier<PIPE_ALL>();\n")
    return edits.overlay()


def pipe_barrier_after_copy_out(op: Operator) -> dict[str, str] | None:
    """pipe-sync: every copy of a tile out to GM in the loop is followed by the intrinsic spelling of a full
    barrier, `pipe_barrier(PIPE_ALL);`."""
    gm = global_tensors(op)
    edits = Edits(op)
    for _, st, args in _sites(op, "DataCopy", "DataCopyPad"):
        if len(args) >= 3 and is_gm(args[0], gm):
            edits.insert(st.file, line_break_after(op, st), f"{st.indent}pipe_barrier(PIPE_ALL);\n")
    return edits.overlay()


# ---- double-buffer -------------------------------------------------------------------------------------------------


def _queue_inits(op: Operator) -> list:
    queues = {q.name for q in op.model.queues if q.kind in ("TQue", "TQueBind")}
    kernel = set(op.model.kernel_files)
    out = []
    for ib in op.model.init_buffers:
        if ib.queue not in queues or ib.loc.file not in kernel or ib.loc.file not in op.sources:
            continue
        if ib.num.value == 1 or ib.num.text.strip() in ("1", "1U", "1u") or ib.num.loc is None:
            continue
        out.append(ib)
    return out


def queue_slots_enum(op: Operator) -> dict[str, str] | None:
    """double-buffer: the function that sets the queues up declares `enum : int32_t { SINGLE_SLOT = 1 };` and
    gives every streaming queue's InitBuffer SINGLE_SLOT buffers (the queue's declared depth is left as it is)."""
    edits = Edits(op)
    declared: set[tuple[str, int]] = set()
    for ib in _queue_inits(op):
        body = function_body_start(op, ib.loc.file, ib.loc.start)
        if body is None:
            continue
        if (ib.loc.file, body) not in declared:
            declared.add((ib.loc.file, body))
            st = statement(op, ib.loc.file, ib.loc.start)
            indent = st.indent if st is not None else "    "
            edits.insert(ib.loc.file, body, f"\n{indent}enum : int32_t {{ SINGLE_SLOT = 1 }};")
        edits.replace(ib.loc.file, ib.num.start, ib.num.end, "SINGLE_SLOT")
    return edits.overlay()


def queue_depth_member(op: Operator) -> dict[str, str] | None:
    """double-buffer: the kernel class holds its buffer count as a member, `static constexpr int32_t queueDepth =
    1;`, and every streaming queue's InitBuffer in the class asks for queueDepth buffers."""
    edits = Edits(op)
    declared: set[str] = set()
    for ib in _queue_inits(op):
        if ib.owner is None:
            continue
        where = class_body_start(op, ib.owner)
        if where is None or re.search(r"\bqueueDepth\b", op.sources[where[0]].text):
            continue
        if ib.owner not in declared:
            declared.add(ib.owner)
            edits.insert(where[0], where[1], "\n    static constexpr int32_t queueDepth = 1;")
        edits.replace(ib.loc.file, ib.num.start, ib.num.end, "queueDepth")
    return edits.overlay()


# ---- copies out: aligned-copy, ub-resident, merged-copy ------------------------------------------------------------


def _copy_outs(op: Operator, pad_too: bool = False) -> list[tuple[Statement, list[str], str, str | None]]:
    """In-loop copies of a local tile to GM: (statement, args, element type, the params' kind for a DataCopyPad).
    A DataCopy must be the count form; a DataCopyPad (with pad_too) must take a named one-block params struct."""
    gm = global_tensors(op)
    out: list[tuple[Statement, list[str], str, str | None]] = []
    for call, st, args in _sites(op, "DataCopy", "DataCopyPad"):
        if len(args) != 3 or not is_gm(args[0], gm) or tensor_parts(args[1]) is None or is_gm(args[1], gm):
            continue
        t = element_type(op, st.file, st.start, args[1])
        if t is None:
            continue
        text = op.sources[st.file].text
        params = re.search(rf"\b(DataCopy(?:Ext)?Params)\s+{re.escape(args[2])}\s*(?:\{{|\()\s*1\s*,", text)
        if call.name == "DataCopy" and "{" not in args[2] and not re.search(rf"Params\s+{re.escape(args[2])}\b", text):
            out.append((st, args, t, None))
        elif call.name == "DataCopyPad" and pad_too and params and re.fullmatch(r"\w+", args[2]):
            out.append((st, args, t, params.group(1)))
    return out


def padded_copy_out(op: Operator) -> dict[str, str] | None:
    """aligned-copy: every count-form copy of a tile out to GM becomes a DataCopyPad of one block with its length
    in bytes, the params built in the call: `DataCopyPad(yGm[o], y, DataCopyExtParams{1, n * sizeof(T), 0, 0, 0})`."""
    edits = Edits(op)
    for st, (gm, local, n), t, _ in _copy_outs(op):
        new = (
            f"AscendC::DataCopyPad({gm}, {local}, "
            f"AscendC::DataCopyExtParams{{1, static_cast<uint32_t>(({n}) * sizeof({t})), 0, 0, 0}});"
        )
        edits.replace(st.file, st.start, st.end, new)
    return edits.overlay()


def output_reloaded(op: Operator) -> dict[str, str] | None:
    """ub-resident: each tile copied out to GM is stored, read back into the same local tensor and stored again,
    the hand-offs ordered by events fetched from the pipe (`GetTPipePtr()->FetchEventID(HardEvent::MTE3_MTE2)`)."""
    edits = Edits(op)
    for st, (gm, local, p), t, kind in _copy_outs(op, pad_too=True):
        if kind is None:
            reload = f"AscendC::DataCopy({local}, {gm}, {p});"
        elif kind == "DataCopyExtParams":
            reload = f"AscendC::DataCopyPad({local}, {gm}, {p}, AscendC::DataCopyPadExtParams<{t}>{{false, 0, 0, 0}});"
        else:
            reload = f"AscendC::DataCopyPad({local}, {gm}, {p}, AscendC::DataCopyPadParams{{false, 0, 0, 0}});"
        store = data_of(op, st.file)[st.start : st.end].decode("utf-8", "surrogateescape")
        lines = ["{"]
        for hop, copy in (("MTE3_MTE2", store), ("MTE2_MTE3", reload)):
            ev, event = f"ev{hop.replace('_', '')}", f"AscendC::HardEvent::{hop}"
            lines += [
                f"    {copy}",
                f"    event_t {ev} = static_cast<event_t>(AscendC::GetTPipePtr()->FetchEventID({event}));",
                f"    AscendC::SetFlag<AscendC::HardEvent::{hop}>({ev});",
                f"    AscendC::WaitFlag<AscendC::HardEvent::{hop}>({ev});",
            ]
        lines += [f"    {store}", "}"]
        edits.replace(st.file, st.start, st.end, _block(st.indent, lines))
    return edits.overlay()


def chunked_copy_out(op: Operator) -> dict[str, str] | None:
    """merged-copy: every count-form copy of a tile out to GM is made in 128-byte pieces (a row of 32 floats at a
    time), a for loop over the tile with a shorter last piece."""
    edits = Edits(op)
    for st, (gm, local, n), t, _ in _copy_outs(op):
        at, left = _free("piece", gm, local, n), _free("left", gm, local, n)
        step = f"static_cast<uint32_t>(128 / sizeof({t}))"
        lines = [
            f"for (uint32_t {at} = 0; {at} < static_cast<uint32_t>({n}); {at} += {step}) {{",
            f"    uint32_t {left} = static_cast<uint32_t>({n}) - {at};",
            f"    AscendC::DataCopy({shifted(gm, at)}, {shifted(local, at)}, {left} < {step} ? {left} : {step});",
            "}",
        ]
        edits.replace(st.file, st.start, st.end, _block(st.indent, lines))
    return edits.overlay()


# ---- cast-round-trip -----------------------------------------------------------------------------------------------


def narrow_twice(op: Operator) -> dict[str, str] | None:
    """cast-round-trip: before a float tile is narrowed for output (`Cast(y, yF32, mode, n)` to half, bf16 or the
    kernel's T), it is narrowed with the same mode and widened back first; the final cast then meets values it
    represents exactly, so the output is the same. Only where the float source is not read again afterwards."""
    edits = Edits(op)
    for _call, st, args in _sites(op, "Cast"):
        if len(args) != 4:
            continue
        dst, src, mode, n = args
        if tensor_parts(dst) is None or tensor_parts(src) is None or dst == src:
            continue
        narrow = element_type(op, st.file, st.start, dst)
        if element_type(op, st.file, st.start, src) != "float" or narrow is None or narrow in _NOT_NARROW:
            continue
        body_end = _function_end(op, st)
        rest = data_of(op, st.file)[st.end : body_end].decode("utf-8", "surrogateescape")
        rest = re.sub(r"[\w.>\-]+\.FreeTensor\s*\([^;]*\)", "", rest)  # freeing reads nothing
        base = (tensor_parts(src) or ("", None))[0]
        if re.search(rf"\b{re.escape(base)}\b", rest):
            continue
        extra = (
            f"AscendC::Cast({dst}, {src}, {mode}, {n});\n{st.indent}"
            f"AscendC::Cast({src}, {dst}, AscendC::RoundMode::CAST_NONE, {n});\n{st.indent}"
        )
        edits.insert(st.file, st.start, extra)
    return edits.overlay()


def _function_end(op: Operator, st: Statement) -> int:
    node = node_at(op, st.file, st.start)
    while node is not None and node.type != "function_definition":
        node = node.parent
    return node.end_byte if node is not None else st.end


RECIPES: dict[str, tuple[str, Recipe]] = {
    "float-cast-scalar-loop": ("vector-not-scalar", float_cast_scalar_loop),
    "clamp-if-chain": ("vector-not-scalar", clamp_if_chain),
    "aiv-num-local": ("all-cores", aiv_num_local),
    "used-cores-local": ("all-cores", used_cores_local),
    "ub-split-eightfold": ("large-tiles", ub_split_eightfold),
    "tile-constant-divided": ("large-tiles", tile_constant_divided),
    "barrier-before-enque": ("pipe-sync", barrier_before_enque),
    "pipe-barrier-after-copy-out": ("pipe-sync", pipe_barrier_after_copy_out),
    "queue-slots-enum": ("double-buffer", queue_slots_enum),
    "queue-depth-member": ("double-buffer", queue_depth_member),
    "padded-copy-out": ("aligned-copy", padded_copy_out),
    "output-reloaded": ("ub-resident", output_reloaded),
    "chunked-copy-out": ("merged-copy", chunked_copy_out),
    "narrow-twice": ("cast-round-trip", narrow_twice),
}
