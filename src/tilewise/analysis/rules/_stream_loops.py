"""Which loops run a queue's EnQue again and again, and whether anything in them could overlap at all.

single-buffer promises that a second buffer lets the copy of tile i+1 run while tile i is computed. That holds only
when (1) a loop really runs the EnQue more than once, and (2) nothing else in that loop already serialises the
stages. The model's `in_loop` flag follows calls by name alone, so a `CopyIn()` of one class looks looped when another
class calls its own `CopyIn()` in a loop; here call sites are matched to the callee's class where the text says it
(the caller's class, or the declared type of the receiver). And a loop body that drains every pipe
(`PipeBarrier<PIPE_ALL>`, directly, through a macro, or in a function it calls), that waits after each copy for the
stage before it (`WaitFlag<HardEvent::MTE3_MTE2>`, `V_MTE2`, `MTE3_V`), or whose compute is a scalar element walk
(GetValue/SetValue in an inner loop: the scalar unit that issues the next copy is busy doing the work) has no overlap
for a second buffer to give.

The scans are textual over tree-sitter regions, a few call levels deep: cheap, and they err towards finding a
serialisation (which keeps the rule quiet) only on evidence in the code.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.apis import PIPES
from tilewise.analysis.rules._barrier_deps import _call_sites, _calls, _function_name, _functions, class_of, region_of
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import LOOP_TYPES

_FULL_BARRIER = re.compile(r"PipeBarrier\s*<\s*PIPE_ALL\s*>|pipe_barrier\s*\(\s*PIPE_ALL\s*\)")
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]*\([^)\n]*\)(.*)$", re.MULTILINE)
_NAMED_BARRIER = re.compile(r"\b([A-Z]\w*PIPE_ALL\w*)\s*\(")
_WAIT = re.compile(r"WaitFlag\s*<\s*(?:AscendC::)?HardEvent::(\w+)\s*>")
_SCALAR_ACCESS = re.compile(r"\.\s*(?:GetValue|SetValue)\s*\(")
# The waits that make one stage of iteration i+1 wait for a later stage of iteration i, per direction.
_SERIALISING_WAITS = {"copy-in": ("MTE3_MTE2", "V_MTE2"), "copy-out": ("MTE3_MTE2", "MTE3_V")}

Region = tuple[SourceFile, Node]


def repeat_loops(ctx, nodes: list[Region]) -> list[Region] | None:
    """The loops that run these calls repeatedly: the innermost loop around each, or for a call in a function, the
    loops around its call sites (three calls up). Empty: no call site is in a loop (run once). None: some function on
    the way has no call site the text shows (called through something unseen), so nothing is known."""
    loops: list[Region] = []
    unknown = False
    for sf, node in nodes:
        todo = [(sf, node)]
        for _ in range(4):
            nxt = []
            for csf, n in todo:
                region = region_of(n)
                if region.type in LOOP_TYPES:
                    if all(region is not r for _, r in loops):
                        loops.append((csf, region))
                    continue
                if region.type != "function_definition":
                    unknown = True
                    continue
                if _is_entry(csf, region):
                    continue  # the launch runs the kernel once per block (its <<<>>> call site is host code)
                sites = _sites_of(ctx, csf, region)
                if not sites:
                    unknown = True  # called from somewhere the text does not show
                nxt += sites
            todo = nxt
            if not todo:
                break
        if todo:
            unknown = True  # deeper than we follow
    return None if unknown and not loops else loops


def serialised(ctx, loops: list[Region], direction: str) -> str | None:
    """Why no stage of these loops can overlap another (the same reason must hold in every loop), else None."""
    reasons = []
    for sf, loop in loops:
        reason = _serialised_one(ctx, sf, loop, direction)
        if reason is None:
            return None
        reasons.append(reason)
    return reasons[0] if reasons else None


def _serialised_one(ctx, sf: SourceFile, loop: Node, direction: str) -> str | None:
    regions = [(sf, loop)] + _callees(ctx, sf, loop)
    texts = [r_sf.node_text(r) for r_sf, r in regions]
    macros = _barrier_macros(ctx)
    for text in texts:
        if _FULL_BARRIER.search(text):
            return "a PipeBarrier<PIPE_ALL> in the loop drains every pipe each iteration"
        for name in macros:
            if re.search(rf"\b{re.escape(name)}\s*\(", text):
                return f"a PipeBarrier<PIPE_ALL> in the loop (through {name}) drains every pipe each iteration"
    for text in texts:
        for m in _WAIT.finditer(text):
            if m.group(1) in _SERIALISING_WAITS.get(direction, ()):
                return (
                    f"a WaitFlag<HardEvent::{m.group(1)}> in the loop makes each iteration wait for the last one's "
                    "later stage"
                )
    for r_sf, region in regions:
        for inner in _loops_within(region):
            if inner is loop or not _SCALAR_ACCESS.search(r_sf.node_text(inner)):
                continue
            if any(PIPES.get(name) == "vector" for _, name, _, _ in _calls(r_sf, inner)):
                continue  # per-row factors read for vector work: the vector unit still does the compute
            return "its compute is a scalar GetValue/SetValue walk, which the scalar unit must finish first"
    return None


def _loops_within(node: Node):
    stack = list(node.named_children)
    while stack:
        n = stack.pop()
        if n.type in LOOP_TYPES:
            yield n
        stack.extend(n.named_children)


def _callees(ctx, sf: SourceFile, region: Node, depth: int = 4) -> list[Region]:
    """The kernel's own functions the region calls, `depth` calls deep (each definition once)."""
    defs = _functions(ctx)
    out: list[Region] = []
    seen: set[int] = set()
    frontier = [(sf, region)]
    for _ in range(depth):
        nxt = []
        for fsf, node in frontier:
            for _call, name, _recv, _args in _calls(fsf, node):
                for dsf, fn in defs.get(name, []):
                    if id(fn) not in seen and len(seen) < 300:
                        seen.add(id(fn))
                        out.append((dsf, fn))
                        nxt.append((dsf, fn))
        frontier = nxt
    return out


def _barrier_macros(ctx) -> list[str]:
    """Function-like macros of the kernel whose body (in any of its #if branches) is a full pipe barrier."""
    found = ctx.__dict__.get("_full_barrier_macros")
    if found is None:
        names: set[str] = set()
        defined: set[str] = set()
        used: set[str] = set()
        for p in ctx.model.kernel_files:
            sf = ctx.sources.get(p)
            if sf is None:
                continue
            text = sf.data.decode("utf-8", "replace")
            if "PIPE_ALL" not in text:
                continue
            for m in _DEFINE.finditer(text):
                defined.add(m.group(1))
                if _FULL_BARRIER.search(m.group(2)):
                    names.add(m.group(1))
            used |= set(_NAMED_BARRIER.findall(text))
        # A macro named for the full barrier whose definition lives outside the operator (a shared header the
        # build adds): taken at its word.
        names |= used - defined
        found = ctx.__dict__["_full_barrier_macros"] = sorted(names)
    return found


# ---- call sites matched to the callee's class ----------------------------------------------------------------
def _sites_of(ctx, sf: SourceFile, fn: Node) -> list[Region]:
    name = _function_name(sf, fn)
    cls = class_of(sf, fn)
    every = [(csf, call) for csf, call in _call_sites(ctx).get(name, []) if not (csf is sf and _encloses(fn, call))]
    mine = [(csf, call) for csf, call in every if cls is None or _site_class(csf, call) in (None, cls)]
    return mine or every  # no site of its own class: a derived class's call, most likely


def _is_entry(sf: SourceFile, fn: Node) -> bool:
    """A kernel entry (`__global__`): the launch runs it once per block, from no loop."""
    body = fn.child_by_field_name("body")
    head = sf.data[fn.start_byte : body.start_byte if body is not None else fn.end_byte]
    before = sf.data[max(0, fn.start_byte - 200) : fn.start_byte].rsplit(b";", 1)[-1].rsplit(b"}", 1)[-1]
    return b"__global__" in head or b"__global__" in before


def _encloses(outer: Node, inner: Node) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _site_class(sf: SourceFile, call: Node) -> str | None:
    """The class whose method a call site calls, when the text says: `op.Process()` with `KernelX op;` declared in
    the file, or a plain `CopyIn()` inside a method of KernelX. None when it cannot tell."""
    fn = call.child_by_field_name("function")
    if fn is not None and fn.type == "field_expression":
        recv = fn.child_by_field_name("argument")
        text = sf.node_text(recv).strip() if recv is not None else ""
        if text in ("this", "(*this)") or text.startswith("this->") and "." not in text[6:]:
            return _enclosing_class(sf, call)
        if not re.fullmatch(r"\w+", text):
            return None
        # The receiver's declaration nearest before the call (a name like `op` is often declared once per branch).
        pattern = rb"\b([A-Za-z_]\w*)\s*(?:<[^;{}()]*>)?\s*[*&]?\s*\b" + re.escape(text.encode()) + rb"\s*[;({=]"
        decls = list(re.finditer(pattern, sf.data[: call.start_byte])) or list(re.finditer(pattern, sf.data))
        if not decls or decls[-1].group(1) in (b"auto", b"return", b"const"):
            return None
        return decls[-1].group(1).decode()
    if fn is not None and fn.type in ("identifier", "template_function"):
        return _enclosing_class(sf, call)
    return None


def _enclosing_class(sf: SourceFile, node: Node) -> str | None:
    p = node.parent
    while p is not None and p.type != "function_definition":
        p = p.parent
    return class_of(sf, p) if p is not None else None
