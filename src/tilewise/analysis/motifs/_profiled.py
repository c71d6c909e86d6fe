"""What the knob motifs share when they find their pattern from a profile rather than from a named constant: the
run the profile's facts describe, the literals a rewrite may move, and the one site with its measured ladder.

all-cores, large-tiles and double-buffer each know from the run what is slow (blockDim below the chip's cores, copies
far under the DMA's sweet spot, a queue with one buffer streaming many tiles) and from the data flow which literals
the slow value is made of (analysis/motifs/_literals.py). A literal is moved only when it is a choice: not a fact
(a type size, an alignment: analysis/knob_facts.py), not the guard of a bound (`if (n < 1) n = 1;`), not the round-up
or the unit of an alignment (`(n + 63) / 64 * 64`), and reaching the value with one sign. The rewrites of all the
literals found become one site: the first is its edit, the others (and the smaller steps) its alternatives, which
verification measures and keeps the fastest correct of.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.findings import TextEdit, edit_range
from tilewise.analysis.motifs._literals import Source
from tilewise.analysis.motifs.base import MotifContext, Site
from tilewise.analysis.observed import CaseFacts
from tilewise.analysis.source import SourceFile

MAX_TRIES = 6  # rewrites a site offers for measuring (its edit and its alternatives): each runs every case


def largest_run(ctx: MotifContext) -> CaseFacts | None:
    """The facts of the case that ran longest: where a slow tiling shows most."""
    runs = [f for f in ctx.facts if f.time_us]
    return max(runs, key=lambda f: f.time_us or 0.0) if runs else None


def _statement(node: Node) -> Node:
    n = node
    while n.parent is not None and not n.type.endswith("statement") and n.type not in ("declaration", "preproc_def"):
        n = n.parent
    return n


def guarded(sf: SourceFile, source: Source) -> bool:
    """A literal assigned under a test of the variable it is assigned to (`if (cores < 1) { cores = 1; }`, the
    fallback of `if (tile == 0) tile = 64;`): a floor or a fallback, not the choice itself."""
    node = sf.tree.root_node.named_descendant_for_byte_range(source.start, source.end)
    if node is None:
        return False
    stmt = _statement(node)
    m = re.match(r"\s*([\w.>\-]+)\s*=", sf.node_text(stmt))
    n = stmt.parent
    while n is not None and n.type == "compound_statement":
        n = n.parent
    if m is None or n is None or n.type != "if_statement":
        return False
    cond = n.child_by_field_name("condition")
    return cond is not None and re.search(rf"\b{re.escape(m.group(1))}\b", sf.node_text(cond)) is not None


def aligning(sf: SourceFile, source: Source) -> bool:
    """The literal rounds to a unit: `(n + 63) / 64 * 64`, `n / 64 * 64`, `n % 64`, `n & ~63`."""
    node = sf.tree.root_node.named_descendant_for_byte_range(source.start, source.end)
    if node is None:
        return True
    text = re.sub(r"\s+", "", sf.node_text(_statement(node)))
    v = source.value
    unit = rf"(?:{v}|{v + 1})"
    patterns = (
        rf"\+{v}\)/{v + 1}\b",  # the round-up addend
        rf"/{v}\)?\*{v}\b",
        rf"/\(?{unit}\)?\)?\*{v}\b",  # the unit divided by and multiplied back
        rf"%{v}\b",
        rf"&~?\(?{v}\b",
        rf"-1\)/{v}\b" if v > 1 else r"$^",
    )
    return any(re.search(p, text) for p in patterns)


def local_sign(sf: SourceFile, source: Source) -> int | None:
    """How the expression the literal stands in moves with it, read where it stands: +1 for a value, a factor, a
    cap or a branch (`n = 2`, `x * 2`, `min(x, 256)`, `c ? 256 : x`), -1 for a divisor or a right shift's count
    (`x / 32`, `x >> 5`), None for an addend, a mask, a modulus or a comparison (scaling those scales nothing).
    The data flow's own signs mix every path to the sink (a tail's `len - t * tile` flips them); the place the
    literal stands does not."""
    node = sf.tree.root_node.named_descendant_for_byte_range(source.start, source.end)
    if node is None:
        return None
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "cast_expression"):
        node, parent = parent, parent.parent
    if parent is None:
        return 1
    if parent.type == "binary_expression":
        op = sf.node_text(parent.child_by_field_name("operator") or parent)
        right = parent.child_by_field_name("right")
        is_right = right is not None and right.id == node.id
        if op == "*" or (op == "<<" and is_right):
            return 1
        if op in ("/", ">>"):
            return -1 if is_right else 1
        return None
    if parent.type == "argument_list":
        call = parent.parent
        fn = call.child_by_field_name("function") if call is not None else None
        name = re.sub(r"<.*", "", sf.node_text(fn)).split("::")[-1] if fn is not None else ""
        args = [a for a in parent.named_children if a.type != "comment"]
        if re.search(r"ceil|div", name, re.IGNORECASE) and args and args[-1].id == node.id:
            return -1
        return None if re.search(r"align|round", name, re.IGNORECASE) else 1
    if parent.type == "conditional_expression":
        cond = parent.child_by_field_name("condition")
        return None if cond is not None and cond.id == node.id else 1
    if parent.type == "assignment_expression":
        op = sf.node_text(parent.child_by_field_name("operator") or parent)
        return {"=": 1, "*=": 1, "/=": -1, ">>=": -1, "<<=": 1}.get(op)
    if parent.type in ("unary_expression", "update_expression", "subscript_argument_list"):
        return None
    return 1  # a declaration's, a member's, an enumerator's or a template argument's whole value


def movable(ctx: MotifContext, sources: list[Source]) -> list[tuple[Source, int]]:
    """The literals a rewrite may move (see the module) with the way their expression moves with them
    (local_sign), in file order."""
    out = []
    for s in sources:
        sf = ctx.sources.get(s.file)
        if sf is None or s.fact is not None or guarded(sf, s) or aligning(sf, s):
            continue
        sign = local_sign(sf, s) if s.start < len(sf.data) and sf.data[s.start : s.start + 1].isdigit() else 1
        if sign is not None:
            out.append((s, sign))
    return out


def literal_edit(ctx: MotifContext, source: Source, value: int) -> TextEdit:
    return edit_range(ctx.sources[source.file], source.start, source.end, str(value))


def one_site(
    motif: str, ctx: MotifContext, tries: list[tuple[str, list[TextEdit]]], why: str, weight: float = 1.0
) -> list[Site]:
    """The site of a profile-found pattern: the first rewrite its edit, up to MAX_TRIES - 1 others to measure."""
    if not tries:
        return []
    label, edits = tries[0]
    first = edits[0]
    site = Site(motif, first.file, first.line, first.end_line, f"{why} First measured: {label}.", edits, weight=weight)
    site.alternatives = tries[1:MAX_TRIES]
    return [site]
