"""What every lint rule shares: the context it reads, and helpers to turn model locations into findings and edits."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cached_property, partial

from tree_sitter import Node

from tilewise.analysis.chip import Chip
from tilewise.analysis.chunks import memo
from tilewise.analysis.dataflow import OperatorFlow
from tilewise.analysis.dtypes import DTYPE_SIZES
from tilewise.analysis.evaluate import TYPE_SIZES, Evaluator
from tilewise.analysis.findings import Finding, Fix, Severity, TextEdit, edit_range
from tilewise.analysis.model import ApiCall, Loc, OperatorModel
from tilewise.analysis.observed import CaseFacts
from tilewise.analysis.source import Chunk, SourceFile

ALIGN_BYTES = 32
GOOD_COPY_BYTES = 16 * 1024


class RuleContext:
    def __init__(
        self, model: OperatorModel, sources: dict[str, SourceFile], chip: Chip, facts: list[CaseFacts] | None = None
    ):
        self.model = model
        self.sources = sources
        self.chip = chip
        # What runs of the operator's cases showed (empty when none ran): sizes a static reading cannot know.
        self.facts: list[CaseFacts] = list(facts or [])
        self._evaluators: dict[str, Evaluator] = {}

    @cached_property
    def flow(self) -> OperatorFlow:
        return OperatorFlow(self.model, self.sources)

    @cached_property
    def kernel_env(self) -> dict[str, int]:
        env: dict[str, int] = {}
        for k in self.model.knobs:
            env.setdefault(k.name, k.value)
        return env

    def evaluator(self, sf: SourceFile) -> Evaluator:
        found = self._evaluators.get(sf.path)
        if found is None:
            sizes = {}
            for t in self.model.inputs + self.model.outputs:
                if t.dtypes:
                    sizes[f"DTYPE_{t.name.upper()}"] = DTYPE_SIZES.get(t.dtypes[0], 2)
            found = self._evaluators[sf.path] = Evaluator(sf.node_text, self.kernel_env, sizes)
        return found

    def may_evaluate(self, text: str) -> bool:
        """False when `evaluator(...).value` of this expression is certainly None: it names no literal, no constant
        and no sizeof. Rules ask it before the (much dearer) tree lookup of each of thousands of calls."""
        env = self.kernel_env
        return any(w[0].isdigit() or w in env or w in _VALUED_WORDS for w in _WORD_RE.findall(text))

    def node(self, loc: Loc | None) -> tuple[SourceFile, Node] | None:
        if loc is None or loc.file not in self.sources:
            return None
        sf = self.sources[loc.file]
        n = sf.tree.root_node.descendant_for_byte_range(loc.start, loc.end)
        while n is not None and (n.start_byte != loc.start or n.end_byte != loc.end) and n.parent is not None:
            if n.start_byte <= loc.start and n.end_byte >= loc.end and n.end_byte - n.start_byte > loc.end - loc.start:
                break
            n = n.parent
        return (sf, n) if n is not None else None

    @staticmethod
    def loc_at(sf: SourceFile, start: int, end: int) -> Loc:
        line, col = sf.line_col(start)
        end_line, end_col = sf.line_col(end)
        return Loc(file=sf.path, line=line, col=col, end_line=end_line, end_col=end_col, start=start, end=end)

    def uses_block_idx(self) -> bool:
        return bool(self.model.calls("GetBlockIdx"))

    @cached_property
    def tensor_types(self) -> dict[str, tuple[str, str]]:
        """name -> (LocalTensor|GlobalTensor, element type) for every tensor declared in the kernel."""
        out: dict[str, tuple[str, str]] = {}
        for tensors, _ in self._declared_names():
            for name, kind, elem in tensors:
                out.setdefault(name, (kind, elem))
        return out

    @cached_property
    def param_vars(self) -> set[str]:
        """Names declared as DataCopyParams / DataCopyExtParams / DataCopyPadExtParams anywhere in the kernel."""
        names: set[str] = set()
        for _, params in self._declared_names():
            names.update(params)
        return names

    def _declared_names(self) -> Iterator[tuple[list[tuple[str, str, str]], list[str]]]:
        """Per chunk of each kernel file (kept across edits): its tensors and its copy-parameter variables."""
        for p in self.model.kernel_files:
            sf = self.sources.get(p)
            if sf is None:
                continue
            for _, found in memo(sf, "declared").run(sf, partial(_declared_in_chunk, sf)):
                yield found
            chunks = sf.chunks()
            yield _names_declared(sf.slice(chunks[-1].end if chunks else 0, len(sf.data)))  # text after the last

    def elem_size(self, call: ApiCall, tensor_text: str | None) -> int | None:
        """Size of the element type of a tensor named in a call (`xLocal`, `xGm[offset]`); None when unknown."""
        if tensor_text is None:
            return None
        found = self.tensor_types.get(tensor_text.split("[")[0].strip().replace("this->", ""))
        if found is None:
            return None
        tname = found[1]
        if tname in TYPE_SIZES:
            return TYPE_SIZES[tname]
        for t in self.model.inputs + self.model.outputs:
            if tname == f"DTYPE_{t.name.upper()}" and t.dtypes:
                return DTYPE_SIZES.get(t.dtypes[0])
        # A template parameter: assume the operator's first input dtype, which is what a case binds it to.
        first = self.model.inputs[0].dtypes[0] if self.model.inputs and self.model.inputs[0].dtypes else None
        return DTYPE_SIZES.get(first) if first else None

    def is_global(self, tensor_text: str) -> bool | None:
        found = self.tensor_types.get(tensor_text.split("[")[0].strip().replace("this->", ""))
        return None if found is None else found[0] == "GlobalTensor"


def _declared_in_chunk(sf: SourceFile, chunk: Chunk, _movable: list) -> tuple[list[tuple[str, str, str]], list[str]]:
    return _names_declared(sf.slice(chunk.start, chunk.end))


def _names_declared(text: str) -> tuple[list[tuple[str, str, str]], list[str]]:
    tensors = [(m.group(3), m.group(1), m.group(2).split("::")[-1]) for m in _TENSOR_DECL_RE.finditer(text)]
    return tensors, [m.group(1) for m in _PARAMS_DECL_RE.finditer(text)]


_WORD_RE = re.compile(r"\w+")
_VALUED_WORDS = frozenset(("sizeof", "true", "false"))
_TENSOR_DECL_RE = re.compile(r"\b(LocalTensor|GlobalTensor)\s*<\s*([\w:]+)\s*>\s*&?\s*(\w+)")
_PARAMS_DECL_RE = re.compile(r"\bDataCopy\w*Params(?:<[^>]*>)?\s+(\w+)")


class Rule:
    """A lint rule: one module, one id, one problem. `check` yields findings; fixes are optional."""

    id: str = ""
    severity: Severity = "warning"
    summary: str = ""

    def check(self, ctx: RuleContext) -> Iterable[Finding]:
        raise NotImplementedError

    def finding(
        self, loc: Loc, message: str, fixes: list[Fix] | None = None, severity: Severity | None = None
    ) -> Finding:
        return Finding(
            rule=self.id,
            severity=severity or self.severity,
            file=loc.file,
            line=loc.line,
            col=loc.col,
            end_line=loc.end_line,
            end_col=loc.end_col,
            message=message,
            fixes=fixes or [],
            start=loc.start,
            end=loc.end,
        )


def statement_of(node: Node) -> Node:
    n = node
    while n.parent is not None and n.type != "expression_statement":
        n = n.parent
    return n if n.type == "expression_statement" else node


def delete_statement(sf: SourceFile, stmt: Node) -> TextEdit:
    """Delete a statement; when it is alone on its line(s), delete the whole lines."""
    start, end = stmt.start_byte, stmt.end_byte
    line_start = sf.data.rfind(b"\n", 0, start) + 1
    line_end = sf.data.find(b"\n", end)
    line_end = len(sf.data) if line_end < 0 else line_end + 1
    before = sf.data[line_start:start].strip()
    after = sf.data[end:line_end].strip()
    if not before and not after:
        return edit_range(sf, line_start, line_end, "")
    return edit_range(sf, start, end, "")


def indent_of(sf: SourceFile, offset: int) -> str:
    line_start = sf.data.rfind(b"\n", 0, offset) + 1
    raw = sf.data[line_start:offset].decode("utf-8", "replace")
    return raw[: len(raw) - len(raw.lstrip())]
