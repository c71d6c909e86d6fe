"""Whether the cores' results need combining: how a kernel's writes to GM sit against the work GetBlockIdx() splits.

low-block-dim's gain (the bandwidth model's "N x faster") holds for a kernel whose every core writes its results to
a part of the output of its own: an elementwise kernel, or a row-wise reduction whose rows the cores split. A kernel
that reduces across the split work (a sum or mean to one value, a loss with reduction=mean/sum) makes one partial
result per core, and more cores mean more partial results to combine: an atomic add, a workspace with SyncAll and a
pass over the partials, or a second kernel. That is read here from the data flow of every write to GM (a DataCopy
or DataCopyPad into a GlobalTensor, a GlobalTensor's SetValue), never from names: where the write lands (its index
and the address its tensor's SetGlobalBuffer gives) and whether the block index reaches that place.

The answer, from the kernel's writes (one in a function nothing calls never happens and is left out):

- "shared": a write no block index places, made by every core, without atomics: the cores' results collide;
- "atomic": such a write, in a kernel that sets SetAtomicAdd/Max/Min: the cores' partial results accumulate there;
- "workspace": else, a write no block index places made by one core only (`if (GetBlockIdx() == 0)`, or after
  `if (GetBlockIdx() != 0) return;`, here or at every call of its function) in a kernel with SyncAll: the partial
  results meet in GM and one core combines them;
- "partials": else, a write its block index places by itself (`out[GetBlockIdx() * 8]`), with no name that places
  an input read and no tiling field: one partial result per core, left for a later pass to combine;
- "split": else. Every write lands where the block index and the core's share of the input place it (the
  elementwise case), or where something this reading does not follow places it (a helper function's result, a
  function-like macro), or the block index places none of the input's reads (the kernel splits its work some
  other way): no claim is made then, and the finding stays as before.

The block index is GetBlockIdx() (or the older `get_block_idx()`, `block_idx`), a `#define` whose body reads one,
and whatever the data flow carries it into (`core = GetBlockIdx();`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node

from tilewise.analysis.rules.base import RuleContext
from tilewise.analysis.source import SourceFile
from tilewise.analysis.treeutil import arg_nodes, function_declarator

Combine = Literal["split", "shared", "atomic", "workspace", "partials"]

# What the block index is read as: the API, the older intrinsic, the older variable.
BLOCK_INDEX = frozenset(("GetBlockIdx", "get_block_idx", "block_idx"))
_ATOMICS = ("SetAtomicAdd", "SetAtomicMax", "SetAtomicMin")
_CASTS = frozenset(("static_cast", "int32_t", "uint32_t", "int64_t", "uint64_t", "int", "size_t"))
# `#define NAME(params) body` over its continuation lines; a body that reads the block index makes NAME one.
_DEFINE_RE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\()?((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)
_INDEX_WORD_RE = re.compile(rb"\b(?:GetBlockIdx|get_block_idx|block_idx)\b")


@dataclass(frozen=True)
class OutputSplit:
    kind: Combine
    tensor: str | None = None  # the GlobalTensor whose write decided it (None for "split")


@dataclass(frozen=True)
class _Access:
    sf: SourceFile
    call: Node  # the call expression
    place: Node  # the expression naming where in the tensor (`yGm[i * n]`, a SetValue's index)
    tensor: str


def output_split(ctx: RuleContext, files: list[str]) -> OutputSplit:
    """How the kernel in `files` writes its results to GM against its cores' split of the work (see above)."""
    return _Kernel(ctx, files).output_split()


class _Kernel:
    """One kernel's files, with what the questions above share: its calls by callee, the words that read the block
    index (a `#define` of one too), and the names whose value the name-level data flow cannot see into."""

    def __init__(self, ctx: RuleContext, files: list[str]):
        self.ctx, self.files = ctx, files
        self.flow = ctx.flow.kernel
        self.sites: dict[str, list[tuple[SourceFile, Node]]] = {}
        functions: set[str] = set()
        self.index_words = set(BLOCK_INDEX)
        self.unseen: set[str] = set()
        for path in files:
            sf = ctx.sources.get(path)
            if sf is None:
                continue
            for c in sf.facts("call"):
                self.sites.setdefault(_callee(sf, c), []).append((sf, c))
            functions.update(n for fn in sf.facts("function") if (n := _function_name(sf, fn)))
            for m in _DEFINE_RE.finditer(sf.data):
                name = m.group(1).decode()
                if _INDEX_WORD_RE.search(m.group(3)):
                    self.index_words.add(name)
                elif m.group(2):
                    self.unseen.add(name)  # a function-like macro: what it computes is not followed
        # a function's result (`off = Offset();`) is not followed into its `return`
        self.unseen |= functions

    def output_split(self) -> OutputSplit:
        writes, reads = self._accesses()
        bases = self._buffer_bases()
        run_time = set(self.ctx.flow.fields)
        for r in reads:
            run_time |= self._place_names(r, bases)
        if not run_time & self.index_words:
            return OutputSplit("split")  # the block index places no read: the split is one not followed here
        shared, one_core, partials = [], [], []
        entries = {e.name for e in self.ctx.model.kernel.entries} | {self.ctx.model.kernel.entry}
        for w in writes:
            name = _function_name(w.sf, fn) if (fn := _enclosing_function(w.call)) is not None else None
            if name is not None and name not in entries and name not in self.sites:
                continue  # a helper nothing calls (another tiling key's, a leftover): its write never happens
            names = self._place_names(w, bases)
            if names & self.index_words:
                if not {n for n in names & run_time if not self._block_index_alone(n)}:
                    partials.append(w)  # nothing that places the input's reads places it: a slot per core
            elif names & self.unseen:
                continue  # placed by something not followed here: no claim either way
            elif self._one_core(w.sf, w.call):
                one_core.append(w)
            else:
                shared.append(w)
        calls = {c.name for c in self.ctx.model.calls(*_ATOMICS, "SyncAll") if c.loc.file in self.files}
        if shared:
            return OutputSplit("atomic" if calls & set(_ATOMICS) else "shared", shared[0].tensor)
        if one_core and "SyncAll" in calls:
            return OutputSplit("workspace", one_core[0].tensor)
        if partials:
            return OutputSplit("partials", partials[0].tensor)
        return OutputSplit("split")

    def _accesses(self) -> tuple[list[_Access], list[_Access]]:
        """The kernel's writes to GM and its reads from GM."""
        ctx = self.ctx
        writes: list[_Access] = []
        reads: list[_Access] = []
        for call in ctx.model.calls("DataCopy", "DataCopyPad", "SetValue", "GetValue"):
            if call.loc.file not in self.files:
                continue
            found = ctx.node(call.loc)
            if found is None or found[1].type != "call_expression":
                continue
            sf, node = found
            args = arg_nodes(node)
            if call.name in ("DataCopy", "DataCopyPad"):
                if len(args) < 2 or len(call.args) < 2:
                    continue
                if ctx.is_global(call.args[0].text):
                    writes.append(_Access(sf, node, args[0], _tensor(call.args[0].text)))
                elif ctx.is_global(call.args[1].text):
                    reads.append(_Access(sf, node, args[1], _tensor(call.args[1].text)))
            elif call.receiver and ctx.is_global(call.receiver) and args:
                into = writes if call.name == "SetValue" else reads
                into.append(_Access(sf, node, args[0], _tensor(call.receiver)))
        return writes, reads

    def _buffer_bases(self) -> dict[str, list[tuple[SourceFile, Node]]]:
        """GlobalTensor name -> the address expressions its SetGlobalBuffer calls give it."""
        out: dict[str, list[tuple[SourceFile, Node]]] = {}
        for call in self.ctx.model.calls("SetGlobalBuffer"):
            if call.loc.file not in self.files or not call.receiver:
                continue
            found = self.ctx.node(call.loc)
            if found is None or found[1].type != "call_expression":
                continue
            args = arg_nodes(found[1])
            if args:
                out.setdefault(_tensor(call.receiver), []).append((found[0], args[0]))
        return out

    def _place_names(self, access: _Access, bases: dict[str, list[tuple[SourceFile, Node]]]) -> set[str]:
        """Every name that may decide where the access lands: its index and its tensor's SetGlobalBuffer address."""
        names = self.flow.names_reaching(access.sf, access.place)
        for sf, node in bases.get(access.tensor, []):
            names |= self.flow.names_reaching(sf, node)
        return names

    def _block_index_alone(self, name: str) -> bool:
        """`name` is the block index, or holds it and nothing else (`core = GetBlockIdx();`, cast or not)."""
        if name in self.index_words:
            return True
        closure = self.flow.closure(name)
        return bool(closure & self.index_words) and closure - {name} - _CASTS <= self.index_words

    def _one_core(self, sf: SourceFile, node: Node, depth: int = 1) -> bool:
        """Whether only the core of one block index reaches `node`: inside `if (<block index> == k)`, after `if
        (<block index> != k) return;` in an enclosing block, or (`depth` levels up) in a function every call of
        which is so."""
        child, p = node, node.parent
        while p is not None and p.type != "function_definition":
            if p.type == "if_statement" and child.id != _field_id(p, "condition"):
                in_else = child.id == _field_id(p, "alternative")
                if self._compares_block_index(sf, p.child_by_field_name("condition"), "!=" if in_else else "=="):
                    return True
            if p.type == "compound_statement":
                for sib in p.named_children:
                    if sib.start_byte >= child.start_byte:
                        break
                    if sib.type == "if_statement" and self._compares_block_index(
                        sf, sib.child_by_field_name("condition"), "!="
                    ):
                        then = sib.child_by_field_name("consequence")
                        if then is not None and (then.type == "return_statement" or _returns(then)):
                            return True
            child, p = p, p.parent
        if p is None or depth <= 0:
            return False
        name = _function_name(sf, p)
        sites = self.sites.get(name, []) if name else []
        return bool(sites) and all(self._one_core(other, c, depth - 1) for other, c in sites)

    def _compares_block_index(self, sf: SourceFile, cond: Node | None, op: str) -> bool:
        """`cond` holds `a op b` (`==` or `!=`) with the block index reaching one side."""
        todo = [cond] if cond is not None else []
        while todo:
            n = todo.pop()
            if n.type == "binary_expression" and sf.node_text(n.child_by_field_name("operator")) == op:
                for side in (n.child_by_field_name("left"), n.child_by_field_name("right")):
                    if side is not None and self.flow.names_reaching(sf, side) & self.index_words:
                        return True
            todo.extend(n.named_children)
        return False


def _tensor(text: str) -> str:
    return text.split("[")[0].strip().replace("this->", "")


def _enclosing_function(node: Node) -> Node | None:
    fn = node.parent
    while fn is not None and fn.type != "function_definition":
        fn = fn.parent
    return fn


def _field_id(node: Node, name: str) -> int | None:
    found = node.child_by_field_name(name)
    return found.id if found is not None else None


def _returns(body: Node) -> bool:
    return any(c.type == "return_statement" for c in body.named_children)


def _function_name(sf: SourceFile, fn: Node) -> str | None:
    decl = function_declarator(fn)
    name = decl.child_by_field_name("declarator") if decl is not None else None
    return sf.node_text(name).split("::")[-1] if name is not None else None


def _callee(sf: SourceFile, call: Node) -> str:
    fn = call.child_by_field_name("function")
    if fn is None:
        return ""
    if fn.type == "field_expression":
        fn = fn.child_by_field_name("field") or fn
    return sf.node_text(fn).split("::")[-1].split("<")[0].strip()
