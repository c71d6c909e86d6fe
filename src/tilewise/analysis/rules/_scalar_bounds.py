"""Proofs scalar-loop asks before it calls a GetValue/SetValue loop a job for a vector instruction.

Two kinds (issue 13: a rule states a problem only when it has proved its premise):
- how long the loop can be when its bound is not one constant: the largest value the callers pass for a
  parameter bound, the tail a round-up pads (`for (i = n; i < (n + 15) / 16 * 16; ++i)` runs at most 15 times),
  the width of a shift by the loop variable (`1 << k` is defined only below the type's width), and whether the
  loop runs once per launch (outermost, in a function no loop calls); one 32-byte block of elements (`32 /
  sizeof(T)`, the host's `BLOCK_SIZE / dtypeSize`), or a pad to the host's tail rounded up to a block;
- whether a vector instruction could do the work at all: stores one element per stride that no 32-byte block
  stride reaches (a scatter), stores decided by a scalar array, values made by 64-bit division inside the
  kernel's own helper, or a loop that hands a row per iteration to the kernel's own helper (a row driver whose
  stores are per-row bookkeeping), or one whose helper issues vector instructions (a group's work).
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.apis import FREE_APIS, MEMBER_APIS
from tilewise.analysis.rules._barrier_deps import _call_sites, _calls, _function_name, _functions, _params
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import LOOP_TYPES
from tilewise.analysis.treeutil import enclosing_function as _enclosing_function

_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_DIVISION_RE = re.compile(r"[\w)\]]\s*[/%]=?\s*[\w(]")
_CALL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*(?:<[^<>()]*>)?\s*\(")
_COND_RE = re.compile(r"\b(?:if|while)\s*\((.*)\)\s*\{?", re.M)
_ARRAY_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\[")


def _in_loop(node: Node) -> bool:
    p = node.parent
    while p is not None and p.type != "function_definition":
        if p.type in LOOP_TYPES:
            return True
        p = p.parent
    return False


def param_bound(ctx, sf: SourceFile, loop: Node, bound: str) -> int | None:
    """The largest value the callers pass for a parameter the loop is bounded by (`pack(out, in, g, 10U)`), when
    every call site's argument evaluates; None when one does not, or no call is seen."""
    fn = _enclosing_function(loop)
    if fn is None or not bound.isidentifier():
        return None
    params = _params(sf, fn)
    if bound not in params:
        return None
    at = params.index(bound)
    sites = _call_sites(ctx).get(_function_name(sf, fn), [])
    values = []
    for csf, call in sites:
        args = call.child_by_field_name("arguments")
        items = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if len(items) != len(params):
            return None  # another overload, or defaults: which parameter is which is not proved
        v = ctx.evaluator(csf).value(items[at])
        if v is None:
            return None
        values.append(v)
    return max(values) if values else None


def padded_tail(ctx, sf: SourceFile, loop: Node, start: str, bound: str) -> int | None:
    """`for (i = n; i < up; ++i)` where `up` is n rounded up to a multiple of K (`(n + K - 1) / K * K`, or an
    AlignUp/RoundUp helper of n and K): the loop pads the tail, at most K - 1 elements."""
    fn = _enclosing_function(loop)
    if fn is None or not bound.isidentifier():
        return None
    text = sf.data[fn.start_byte : loop.start_byte].decode("utf-8", "replace")
    defs = re.findall(rf"\b{re.escape(bound)}\s*=\s*([^;]+);", text)
    if not defs:
        return None
    start = re.sub(r"\s+", "", start)
    # `old = n; n = Ceil(n, K) * K; for (i = old; i < n; ...)`: the start names the bound's value before it was padded
    alias = re.findall(rf"\b{re.escape(start)}\s*=\s*([\w.>-]+)\s*;", text) if start.isidentifier() else []
    n = "(?:" + "|".join(re.escape(a) for a in [start, *alias[-1:]]) + ")"
    expr = re.sub(r"\s+", "", defs[-1])
    for pattern in (
        rf"\(+{n}\)?\+(\w+)-1\)/(\w+)\*(\w+)",
        rf"\w*(?:[Aa]lign|[Rr]ound[Uu]p)\w*\({n},(\w+)\)",
        rf"\w*Ceil\w*\({n},(\w+)\)\*(\w+)",
    ):
        m = re.fullmatch(pattern, expr)
        if m is None or len(set(m.groups())) != 1:
            continue
        k = _constant(m.group(1), ctx.evaluator(sf))
        if k is None:
            return None
        return k - 1 if k > 0 else None
    return None


def shift_width(values: list[str], walkers: set[str]) -> int | None:
    """A stored value that shifts by the loop variable (`(1 << k) - 1`): the shift is defined only below the
    type's width, so the loop runs at most 32 (64 for a 64-bit literal or type) times."""
    for value in values:
        for w in walkers:
            if w and re.search(rf"<<\s*\(?\s*{re.escape(w)}\b", value):
                return 64 if re.search(r"\d(?:ULL|UL|LL|L)\b|64", value, re.I) else 32
    return None


def once_per_launch(ctx, sf: SourceFile, loop: Node, depth: int = 4) -> bool:
    """The loop is the outermost one in its function, and no caller (a few levels up) calls that function from a
    loop: it runs once per launch (a table set up in Init). Unknown callers count as a loop."""
    if _in_loop(loop):
        return False
    fn = _enclosing_function(loop)
    entries = {e.name for e in ctx.model.kernel.entries} if ctx.model.kernel else set()
    todo = [(sf, fn)]
    for _ in range(depth):
        nxt = []
        for fsf, f in todo:
            if f is None:
                return False
            name = _function_name(fsf, f)
            if name in entries:
                continue
            sites = _call_sites(ctx).get(name, [])
            if not sites or len(sites) > 4:
                return False  # called from where this reading does not see, or from many places
            for csf, call in sites:
                if _in_loop(call):
                    return False
                nxt.append((csf, _enclosing_function(call)))
        todo = nxt
        if not todo:
            return True
    return False


def row_driver(ctx, sf: SourceFile, loop: Node) -> bool:
    """A statement in the loop calls a helper (the kernel's own, or one from a header outside the operator; not an
    AscendC API) with a tensor (`FillRow(seed, xUb, rowBase)`): each iteration hands a row to that helper, and the
    loop's own GetValue/SetValue are per-row bookkeeping. (A helper called inside a stored value is an element
    computation, and does not count.)"""
    tensors = ctx.tensor_types
    body = loop.child_by_field_name("body")
    if body is None:
        return False
    for call, name, _, args in _calls(sf, body):
        if (
            name in FREE_APIS
            or name in MEMBER_APIS
            or call.parent is None
            or call.parent.type != "expression_statement"
        ):
            continue
        if any(re.sub(r"\[.*", "", a).strip().lstrip("&*").replace("this->", "") in tensors for a in args):
            return True
    return False


def scalar_branch(ctx, body: str) -> bool:
    """A branch in the loop tests a scalar array (`if (flag[i] != 1)`): which elements are stored is decided by
    data a vector instruction cannot read (a tensor's sub-tensor `x[i]` is not a scalar array)."""
    tensors = ctx.tensor_types
    for cond in _COND_RE.findall(body):
        if any(name not in tensors and name.replace("this->", "") not in tensors for name in _ARRAY_RE.findall(cond)):
            return True
    return False


def strided_scatter(index: str, walkers: set[str], elem: int | None, evaluator, phases: int) -> bool:
    """The index steps by a constant stride of more than one element whose span is not a whole number of 32-byte
    blocks (`j * 9` over uint64), and the loop's `phases` walking stores do not fill the stride (an interleave,
    `2 * k` and `2 * k + 1`, is a permutation Gather does): no vector instruction lands there, it is a scatter."""
    if evaluator is None:
        return False
    elem = elem or 8  # unknown type: an odd stride misses the 32-byte block even for the widest element
    for w in walkers:
        if not w:
            continue
        m = re.search(rf"\b{re.escape(w)}\s*\*\s*\(?\s*(\w+)|(\w+)\s*\)?\s*\*\s*{re.escape(w)}\b", index)
        if m is None:
            continue
        stride = _constant(m.group(1) or m.group(2), evaluator)
        if stride is not None and stride > max(1, phases) and (stride * elem) % 32 != 0:
            return True
    return False


def _constant(word: str, evaluator) -> int | None:
    try:
        return int(word.rstrip("uUlL"), 0)
    except ValueError:
        return evaluator.env.get(word)


def uses_int64_division(ctx, value: str) -> bool:
    """The value calls a function of the kernel whose body divides 64-bit integers (`x / q64` on int64_t): the
    vector unit has no 64-bit division, so that element work stays on the scalar unit by design."""
    defs = _functions(ctx)
    for name in dict.fromkeys(_CALL_RE.findall(value)):
        for fsf, fn in defs.get(name, []):
            text = _COMMENT_RE.sub("", fsf.node_text(fn))
            if re.search(r"(?<![u\w])int64", text) and _DIVISION_RE.search(text):
                return True
    return False


_ROUND_DOWN_RE = r"\b{name}\s*=\s*\(*\s*\(*[^;]*?\)?\s*/\s*(\w+)\s*\)?\s*\*\s*(\w+)\s*;"


def aligned_remainder(sf: SourceFile, loop: Node, tensors: set[str]) -> bool:
    """The loop is the unaligned head or tail around an aligned vector body: the block that holds it also runs a
    vector instruction on a sub-tensor of the same tensor (`Adds(y[off + done], x[...], b, bodyLen)`) whose count
    is rounded down to a multiple (`bodyLen = (rest / K) * K`). What is left to the scalar unit is less than one
    32-byte block on either side, which no vector instruction can start at (its address is not aligned)."""
    from tilewise.analysis.apis import PIPES

    block = loop.parent
    fn = _enclosing_function(loop)
    if block is None or fn is None or not tensors:
        return False
    text = sf.data[block.start_byte : block.end_byte].decode("utf-8", "replace")
    fn_text = _COMMENT_RE.sub("", sf.data[fn.start_byte : fn.end_byte].decode("utf-8", "replace"))
    vector = "|".join(n for n in PIPES if PIPES[n] == "vector")
    names = "|".join(re.escape(t) for t in tensors)
    for m in re.finditer(rf"\b(?:{vector})\s*(?:<[^<>()]*>)?\s*\(\s*(?:{names})\s*\[([^;]*?)\)\s*;", text):
        for count in re.findall(r"[A-Za-z_]\w*", m.group(1)):
            d = re.search(_ROUND_DOWN_RE.format(name=re.escape(count)), fn_text)
            if d is not None and d.group(1) == d.group(2):
                return True
    return False


def never_called(ctx, sf: SourceFile, loop: Node) -> bool:
    """The loop's function is the kernel's own, not an entry, and nothing in the operator names it but its own
    definitions and declarations: no call, no macro body, no function pointer. A caller inside a /* */ comment, or
    in an #if branch the device build provably skips (ASCENDC_CPU_DEBUG, or a macro the operator #defines to one
    value everywhere: `#if MEM_OPS == 1 ... #else caller #endif` with MEM_OPS 1), does not count; nor does a loop
    that itself sits in such a branch (the tree reads the first branch when the choice needs another file). It
    never runs."""
    fn = _enclosing_function(loop)
    if fn is None:
        return False
    name = _function_name(sf, fn)
    at = len(sf.data[: loop.start_byte].decode("utf-8", "replace"))
    if any(a <= at < b for a, b in _code(ctx, sf)[1]):
        return True  # the loop itself sits in a branch the device build skips
    entries = {e.name for e in ctx.model.kernel.entries} if ctx.model.kernel else set()
    if not name or name in entries or name == "main":
        return False
    cache = ctx.__dict__.setdefault("_never_called", {})
    if name not in cache:
        cache[name] = _named_only_where_declared(ctx, name)
    return cache[name]


def _named_only_where_declared(ctx, name: str) -> bool:
    """No call, macro body or function pointer names the function: only its definitions and declarations do."""
    word = re.compile(rf"\b{re.escape(name)}\b")
    # Named once per definition, and a declaration or two, at most; far more names and it is used. Counted with
    # an early stop, and the declarations and call sites (whole-file tree queries) asked only when it may be dead.
    definitions = len(_functions(ctx).get(name, []))
    most = 2 * definitions + 2
    named = 0
    for p in ctx.model.kernel_files:
        other = ctx.sources.get(p)
        if other is None:
            continue
        text, off = _code(ctx, other)
        for m in word.finditer(text):
            if not off or not any(a <= m.start() < b for a, b in off):
                named += 1
                if named > most:
                    return False
    if _call_sites(ctx).get(name):
        return False
    declared = definitions
    for p in ctx.model.kernel_files:
        other = ctx.sources.get(p)
        if other is not None:
            declared += sum(1 for d in other.facts("decl") if _declares(other, d, name))
    return named <= declared


def _declares(sf: SourceFile, decl: Node, name: str) -> bool:
    """A declaration (`void f(int);`, in a class or at file scope) of the function `name`."""
    d = decl.child_by_field_name("declarator")
    while d is not None and d.type in ("pointer_declarator", "reference_declarator"):
        d = d.child_by_field_name("declarator") or (d.named_children[-1] if d.named_children else None)
    if d is None or d.type != "function_declarator":
        return False
    inner = d.child_by_field_name("declarator")
    return inner is not None and sf.node_text(inner).split("::")[-1] == name


def _code(ctx, sf: SourceFile) -> tuple[str, list[tuple[int, int]]]:
    """A file's text with comments blanked, and its branches the device build skips; once per lint run."""
    cache = ctx.__dict__.setdefault("_scalar_code", {})
    found = cache.get(sf.path)
    if found is None:
        text = _COMMENT_RE.sub(lambda m: " " * len(m.group(0)), sf.data.decode("utf-8", "replace"))
        found = cache[sf.path] = (text, _inactive(text, _device_macros(ctx)))
    return found


def _device_macros(ctx) -> dict[str, int]:
    """The device build's macros plus those the operator #defines to one value in every place it defines them."""
    from tilewise.analysis.preprocess.conditionals import DEVICE_DEFINES

    values: dict[str, set[int]] = {}
    for k in ctx.model.knobs:
        if k.kind == "define" and k.side == "kernel":
            values.setdefault(k.name, set()).add(k.value)
    return {**DEVICE_DEFINES, **{n: next(iter(v)) for n, v in values.items() if len(v) == 1}}


def _inactive(text: str, macros: dict[str, int]) -> list[tuple[int, int]]:
    """Character ranges of #if / #elif / #else branches the device build provably skips (a condition that evaluates
    to 0 with `macros`); an undecidable condition keeps its branch (it may be compiled)."""
    from tilewise.analysis.preprocess.conditionals import DEVICE_UNDEFINED, evaluate, is_defined

    out: list[tuple[int, int]] = []
    stack: list[list] = []  # [active, taken, start of the branch]
    undefined = set(DEVICE_UNDEFINED)
    for m in re.finditer(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b([^\n]*)", text, re.M):
        kind, rest = m.group(1), m.group(2)
        if kind in ("if", "ifdef", "ifndef"):
            if kind == "if":
                cond = evaluate(rest.encode(), dict(macros), set(undefined))
            else:
                words = rest.split()
                known = is_defined(words[0], macros, undefined) if words else None
                cond = known if kind == "ifdef" or known is None else int(not known)
            stack.append([cond, cond, m.end()])
            continue
        if not stack:
            continue
        frame = stack[-1]
        if frame[0] == 0:
            out.append((frame[2], m.start()))
        if kind == "endif":
            stack.pop()
            continue
        taken = frame[1]
        if kind == "else":
            frame[0] = 0 if taken == 1 else (1 if taken == 0 else None)
        else:
            cond = evaluate(rest.encode(), dict(macros), set(undefined))
            frame[0] = 0 if taken == 1 else (cond if taken == 0 else (0 if cond == 0 else None))
            frame[1] = 1 if taken == 1 or cond == 1 else (0 if taken == 0 and cond == 0 else None)
        frame[2] = m.end()
    return out


BLOCK_BYTES = 32  # one UB block: the unit a vector instruction's address and a DataCopy's length are aligned to
_BLOCK_NAMES = {"ONE_BLK_SIZE": BLOCK_BYTES, "ONE_BLOCK_SIZE": BLOCK_BYTES}
_ASSIGNED_RE = r"(?:(?<=this->)|(?<![\w.>])){}\s*=(?!=)\s*([^;{{}}]+);"  # `name = ...;`, not `a.name = ...;`
_PER_BLOCK_RE = re.compile(r"\(?\s*(\w+)\s*\)?\s*/\s*(sizeof\s*\([^()]*\)|\w+)")


def block_bound(ctx, sf: SourceFile, loop: Node, bound: str) -> int | None:
    """The loop's bound is the number of elements in one 32-byte block: every assignment of it (in the kernel, or
    the host variable its tiling field is set from) is `32 / sizeof(T)`, `ONE_BLK_SIZE / sizeof(T)`,
    `BLOCK_SIZE / dtypeSize` (a byte size divides it) or a constant of at most 32; or the loop runs in the branch
    of `if (nAlign > perBlock)` that is taken when the align-up of its bound is at most one block. At most 32
    elements: fewer than a vector instruction needs to pay for its pipe hand-offs."""
    direct = _per_block(ctx, bound)
    if direct is not None:
        return direct
    return _guarded_by_block(ctx, sf, loop, bound)


def _per_block(ctx, bound: str) -> int | None:
    name = re.sub(r"^(?:this->)?(?:\w+(?:\.|->))?", "", bound.strip())
    if not name.isidentifier():
        return None
    defs: list[tuple[SourceFile, str]] = []
    for p in ctx.model.kernel_files:
        ksf = ctx.sources.get(p)
        if ksf is not None:
            text = _code(ctx, ksf)[0]
            defs += [(ksf, d) for d in re.findall(_ASSIGNED_RE.format(re.escape(name)), text)]
    for tf in ctx.model.tiling.functions:
        for s in tf.setters:
            if s.field != name:
                continue
            hsf = ctx.sources.get(s.loc.file)
            if hsf is None:
                return None
            if s.expr.text.strip().isidentifier():  # set from a host variable: judge its assignments
                var = s.expr.text.strip()
                text = _COMMENT_RE.sub("", hsf.data.decode("utf-8", "replace"))
                found = re.findall(rf"(?<![\w.>]){re.escape(var)}\s*=(?!=)\s*([^;{{}}]+);", text)
                if not found:
                    return None
                defs += [(hsf, d) for d in found]
            else:
                defs.append((hsf, s.expr.text))
    if not defs:
        return None
    return BLOCK_BYTES if all(_at_most_a_block(ctx, dsf, d) for dsf, d in defs) else None


def _at_most_a_block(ctx, sf: SourceFile, expr: str) -> bool:
    """`32 / size` (a byte size divides 32 bytes) or a constant of at most 32."""
    evaluator = ctx.evaluator(sf)
    expr = re.sub(r"static_cast<[^<>]*>", "", expr.strip())
    value = _constant(expr.strip("() "), evaluator) if re.fullmatch(r"\(?\s*\w+\s*\)?", expr) else None
    if value is not None:
        return 0 <= value <= BLOCK_BYTES
    m = _PER_BLOCK_RE.fullmatch(expr)
    if m is None:
        return False
    block = _BLOCK_NAMES.get(m.group(1)) or _constant(m.group(1), evaluator)
    size = m.group(2)
    return block == BLOCK_BYTES and (size.startswith("sizeof") or re.search(r"size|bytes", size, re.I) is not None)


def _guarded_by_block(ctx, sf: SourceFile, loop: Node, bound: str) -> int | None:
    """`if (nAlign > perBlock) {...} else { for (i = 0; i < n; ++i) ... }` with nAlign the align-up of n and
    perBlock one block's elements: the loop runs at most one block."""
    child, p = loop, loop.parent
    fn = _enclosing_function(loop)
    while p is not None and p is not fn:
        if p.type == "if_statement":
            cond = p.child_by_field_name("condition")
            alt = p.child_by_field_name("alternative")
            text = re.sub(r"\s+", "", sf.node_text(cond)).strip("()") if cond is not None else ""
            m = re.fullmatch(r"([\w.>-]+)(>|<=)([\w.>-]+)", text)
            in_else = alt is not None and alt.start_byte <= child.start_byte < alt.end_byte
            if (
                m is not None
                and (in_else == (m.group(2) == ">"))
                and _per_block(ctx, m.group(3)) is not None
                and _covers(ctx, sf, fn, m.group(1).replace("this->", ""), bound)
            ):
                return BLOCK_BYTES
        child, p = p, p.parent
    return None


def _covers(ctx, sf: SourceFile, fn: Node | None, big: str, n: str) -> bool:
    """`big` is `n` or every assignment of it rounds `n` up (`CeilDivMul(n, k)`, `AlignUp(n, k)`)."""
    if big == n:
        return True
    defs = []
    for p in ctx.model.kernel_files:
        ksf = ctx.sources.get(p)
        if ksf is not None:
            defs += re.findall(_ASSIGNED_RE.format(re.escape(big)), _code(ctx, ksf)[0])
    rounds = rf"(?:this->)?\w*(?:[Aa]lign|[Rr]ound[Uu]p|Ceil\w*Mul)\w*\(\s*{re.escape(n)}\s*,[^;]*\)"
    defs = [d for d in defs if d.strip() != "0"]  # a member's zero initialiser is no value the loop sees
    return bool(defs) and all(re.fullmatch(rounds, d.strip()) for d in defs)


def vector_helper(ctx, sf: SourceFile, loop: Node, depth: int = 3) -> bool:
    """A statement in the loop calls a helper of the kernel that issues vector or copy instructions (directly or
    through helpers of its own, a few levels down): each iteration is a group's or a row's vector work, and the
    loop's GetValue/SetValue are per-group scalars (a mean, a scale) for it, not an element walk."""
    from tilewise.analysis.apis import COPIES, PIPES

    work = {n for n in PIPES if PIPES[n] == "vector"} | set(COPIES)
    defs = _functions(ctx)
    cache = ctx.__dict__.setdefault("_vector_helpers", {})

    def issues(name: str, left: int) -> bool:
        if name in cache:
            return cache[name]
        cache[name] = False  # recursion guard
        found = False
        for fsf, fn in defs.get(name, []):
            names = [n for _, n, _, _ in _calls(fsf, fn)]
            if any(n in work for n in names) or (
                left > 0 and any(n in defs and n != name and issues(n, left - 1) for n in names)
            ):
                found = True
                break
        cache[name] = found
        return found

    body = loop.child_by_field_name("body")
    if body is None:
        return False
    for call, name, _, _ in _calls(sf, body):
        if (
            name in defs
            and call.parent is not None
            and call.parent.type == "expression_statement"
            and issues(name, depth)
        ):
            return True
    return False


_PAD_EXPRS = (
    r"\(+(\w+)\)?\+(\w+)-1\)/(\w+)\*(\w+)",
    r"\w*(?:[Aa]lign|[Rr]ound[Uu]p)\w*\((\w+),(\w+)\)",
    r"\w*Ceil\w*\((\w+),(\w+)\)\*(\w+)",
)


def paired_pad(ctx, sf: SourceFile, loop: Node, start: str, bound: str) -> int | None:
    """`for (i = count; i < padded; ++i)` where each assignment of `padded` before the loop comes with one of
    `count` next to it, and each pair is either the same value (the loop does not run) or two tiling fields the
    host sets from one variable, `padded` to its round-up to K (`set_tailPad(Ceil(t, K) * K); set_tail(t)`): the
    loop pads at most K - 1 elements."""
    fn = _enclosing_function(loop)
    if fn is None or not bound.isidentifier() or not start.isidentifier():
        return None
    text = _COMMENT_RE.sub("", sf.data[fn.start_byte : loop.start_byte].decode("utf-8", "replace"))
    pads = list(re.finditer(_ASSIGNED_RE.format(re.escape(bound)), text))
    counts = list(re.finditer(_ASSIGNED_RE.format(re.escape(start)), text))
    if not pads or len(pads) != len(counts):
        return None
    most = 0
    for p, c in zip(pads, counts, strict=True):
        lo, hi = sorted((p, c), key=lambda m: m.start())
        if ";" in text[lo.end() : hi.start()]:
            return None  # another statement between them: not one pair
        pv, cv = p.group(1).strip(), c.group(1).strip()
        if pv == cv:
            continue
        k = _host_pad(ctx, re.sub(r"^.*(?:\.|->)", "", pv), re.sub(r"^.*(?:\.|->)", "", cv))
        if k is None:
            return None
        most = max(most, k - 1)
    return most


def _host_pad(ctx, pad_field: str, count_field: str) -> int | None:
    """K when the host sets `pad_field` to `count_field`'s variable rounded up to K, with that variable not
    reassigned between the two setters; None otherwise."""
    pads = [s for tf in ctx.model.tiling.functions for s in tf.setters if s.field == pad_field]
    counts = [s for tf in ctx.model.tiling.functions for s in tf.setters if s.field == count_field]
    if len(pads) != 1 or len(counts) != 1 or pads[0].loc.file != counts[0].loc.file:
        return None
    t = counts[0].expr.text.strip()
    expr = re.sub(r"\s+", "", pads[0].expr.text)
    hsf = ctx.sources.get(pads[0].loc.file)
    if hsf is None or not t.isidentifier():
        return None
    lines = hsf.data.decode("utf-8", "replace").splitlines()
    a, b = sorted((pads[0].loc.line, counts[0].loc.line))
    if re.search(_ASSIGNED_RE.format(re.escape(t)), "\n".join(lines[a - 1 : b - 1])):
        return None
    for pattern in _PAD_EXPRS:
        m = re.fullmatch(pattern, expr)
        if m is not None and m.group(1) == t and len(set(m.groups()[1:])) == 1:
            return _constant(m.group(2), ctx.evaluator(hsf))
    return None
