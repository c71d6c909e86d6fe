"""What every optimisation motif shares: the two directions it is written in, and the context both read.

A motif is one optimisation an AscendC expert applies (double-buffer the queues, copy in large tiles, fuse two
vector passes into one call). It is written twice, as two inverse source transforms:

- `rewind(ctx)`: take a kernel that HAS the optimisation and take it out (the fast kernel made slow). Mining
  (`search/bank/mine.py`) runs the rewound kernel on the device and keeps the pair only when it is still correct
  and measurably slower: that is the evidence the bank holds.
- `detect(ctx)`: find where a kernel LACKS it (the slow pattern is present), say why in one sentence, and give
  the edits that put it in when the rewrite is deterministic (None when only a person or an LLM can write it).

Both read a `MotifContext` (the operator as parsed, its texts, the chip, the lint findings on demand) and return
plain records. Nothing here runs a kernel: whether a rewind slows it or a detected fix speeds it up is measured by
the search layer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from tree_sitter import Node

from tilewise.analysis.chip import Chip, load_chip
from tilewise.analysis.findings import Finding, TextEdit
from tilewise.analysis.model import ApiCall
from tilewise.analysis.observed import CaseFacts
from tilewise.analysis.operator import Operator
from tilewise.analysis.rules.base import RuleContext
from tilewise.analysis.source import SourceFile


@dataclass
class Rewound:
    """One de-optimisation of a fast kernel: the whole new text of each file it changed, and where it changed."""

    motif: str
    description: str  # what was taken out, in words ("BUFFER_NUM 2 -> 1")
    texts: dict[str, str]  # path -> the file's whole new text (only the files that changed)
    file: str
    line: int


@dataclass
class Site:
    """Where a kernel lacks a motif: the slow pattern's range, why the motif fits there, and the edits that put the
    motif in when they can be written without judgement (else None)."""

    motif: str
    file: str
    line: int
    end_line: int
    why: str
    edits: list[TextEdit] | None = None
    col: int = 1
    end_col: int = 1
    # Other values of the same rewrite worth measuring (label, edits): a block count or tile size between the
    # shipped value and the fix's target. Verification measures each and keeps the fastest correct one.
    alternatives: list[tuple[str, list[TextEdit]]] = field(default_factory=list)
    # How surely the slow pattern is there: 1 when a rule proved it, less for a guess only verification can settle
    # (retrieval scales the motif's score by its surest site).
    weight: float = 1.0


class MotifContext:
    """The operator as both directions read it. Lint findings are computed once, on first use. `facts` are what runs
    of its cases showed (analysis/observed.py: blockDim, each InitBuffer, how often each call ran, how many bytes each
    copy moved), when a profile was run: detectors read them, and so do the lint rules some motifs detect through."""

    def __init__(self, op: Operator, chip: Chip | None = None, facts: list[CaseFacts] | None = None):
        self.op = op
        self.model = op.model
        self.sources: dict[str, SourceFile] = op.sources
        self.chip = chip or load_chip()
        self.facts: list[CaseFacts] = list(facts or [])

    @cached_property
    def texts(self) -> dict[str, str]:
        return {p: sf.text for p, sf in self.sources.items()}

    @cached_property
    def rules(self) -> RuleContext:
        """The lint rules' view of the same operator: its tree lookups, and the findings' data flow."""
        return RuleContext(self.model, self.sources, self.chip, self.facts)

    @cached_property
    def findings(self) -> list[Finding]:
        from tilewise.analysis.lint import lint

        return lint(self.op, context=self.rules)

    def findings_of(self, rule: str) -> list[Finding]:
        return [f for f in self.findings if f.rule == rule]

    @cached_property
    def kernel_files(self) -> list[str]:
        return [p for p in self.model.kernel_files if p in self.sources]

    def calls(self, *names: str) -> list[ApiCall]:
        """The kernel's API calls of these names, in file order."""
        wanted = set(names)
        found = [c for c in self.model.api_calls if c.name in wanted and c.loc.file in self.sources]
        return sorted(found, key=lambda c: (c.loc.file, c.loc.start))

    def statement(self, call: ApiCall) -> tuple[SourceFile, Node] | None:
        """The expression statement a call stands in (`DataCopy(x, y, n);`), or None when it is part of more."""
        found = self.rules.node(call.loc)
        if found is None:
            return None
        sf, n = found
        while n.parent is not None and n.type != "expression_statement":
            if n.type in ("compound_statement", "function_definition"):
                return None
            n = n.parent
        return (sf, n) if n.type == "expression_statement" else None


# ---- text helpers shared by the transforms -----------------------------------------------------------------------


def splice(sf: SourceFile, start: int, end: int, new_text: str) -> str:
    """The file's whole text with bytes [start, end) replaced."""
    return (sf.data[:start] + new_text.encode() + sf.data[end:]).decode("utf-8", "replace")


def splice_many(sf: SourceFile, spans: list[tuple[int, int, str]]) -> str:
    """The file's whole text with several non-overlapping byte spans replaced."""
    data = sf.data
    for start, end, new in sorted(spans, key=lambda s: s[0], reverse=True):
        data = data[:start] + new.encode() + data[end:]
    return data.decode("utf-8", "replace")


def line_start(sf: SourceFile, offset: int) -> int:
    return sf.data.rfind(b"\n", 0, offset) + 1


def line_end(sf: SourceFile, offset: int) -> int:
    """The offset just past the newline that ends the line holding `offset`."""
    end = sf.data.find(b"\n", offset)
    return len(sf.data) if end < 0 else end + 1


def indent_at(sf: SourceFile, offset: int) -> str:
    start = line_start(sf, offset)
    line = sf.data[start:offset].decode("utf-8", "replace")
    return line[: len(line) - len(line.lstrip())]


def element_type(sf: SourceFile, within: Node, tensor: str) -> str | None:
    """The element type of a LocalTensor/GlobalTensor named `tensor` (its base name, before `[`), from its
    declaration in the function `within` or in the file (a member): `LocalTensor<T> xLocal` -> T."""
    base = re.split(r"[\[.]", tensor.replace("this->", "").strip())[0].strip()
    pattern = rf"(?:Local|Global)Tensor\s*<\s*([\w:]+)\s*>\s*&?\s*{re.escape(base)}\b"
    for text in (sf.node_text(within), sf.text):
        m = re.search(pattern, text)
        if m:
            return m.group(1)
    return None


def is_gm(sf: SourceFile, tensor: str) -> bool:
    """Whether a copy operand names a GlobalTensor (declared so in the file, or a conventional `...Gm` name)."""
    base = re.split(r"[\[.]", tensor.replace("this->", "").strip())[0].strip()
    if re.search(rf"GlobalTensor\s*<[^>]*>\s*&?\s*{re.escape(base)}\b", sf.text):
        return True
    return bool(re.search(r"(?:Gm|GM|_gm|Global)\w*$", base))


def enclosing(node: Node, *types: str) -> Node | None:
    n = node.parent
    while n is not None and n.type not in types:
        n = n.parent
    return n


@dataclass
class Motif:
    """A motif: its id (the bank's key), its title (imperative, the good direction), the slow pattern it removes in
    words, the kind of change for the model-error note (analysis/model_error.py), and the lint rule that finds the
    slow pattern when one does (then `detect` is that rule's findings and fixes)."""

    id: str
    title: str
    removes: str
    kinds: tuple[str, ...] = ()
    rule: str | None = None
    examples: list[str] = field(default_factory=list)

    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        raise NotImplementedError

    def detect(self, ctx: MotifContext) -> list[Site]:
        """By default, the lint rule's findings: the rule proved the slow pattern; its first fix is the edit."""
        if self.rule is None:
            return []
        sites = []
        for f in ctx.findings_of(self.rule):
            edits = list(f.fixes[0].edits) if f.fixes else None
            sites.append(
                Site(self.id, f.file, f.line, f.end_line, f.message, edits or None, col=f.col, end_col=f.end_col)
            )
        return sites
