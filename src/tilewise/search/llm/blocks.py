"""The SEARCH/REPLACE edit format an LLM answers in, read and applied to the operator's sources in memory.

One block is a line with the file's path relative to the operator's folder, then

    <<<<<<< SEARCH
    the exact old lines
    =======
    the new lines
    >>>>>>> REPLACE

fenced in ``` or not; many models already write it. A block without a path line edits the previous block's file.

An edit applies only when its SEARCH text occurs exactly once in the file, as whole lines; anything else is a
`BlockMismatch` whose reason is sent back to the model once (search/llm/rewrite.py). Only the operator's own
sources may change: never its manifest or golden (they are what correctness is checked against), nor anything
outside its folder. The result is a list of `TextEdit`s over the original texts, so the rest of tilewise (verify,
apply, diffs) handles it like any other fix.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from tilewise.analysis.findings import TextEdit

SEARCH = re.compile(r"^\s*<{5,9} ?SEARCH\s*$")
DIVIDER = re.compile(r"^\s*={5,9}\s*$")
REPLACE = re.compile(r"^\s*>{5,9} ?REPLACE\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass
class Block:
    path: str  # as the model wrote it
    search: str
    replace: str
    line: int  # the block's line in the answer (1-based), for messages


@dataclass
class BlockMismatch:
    block: Block
    reason: str


class AnswerError(ValueError):
    """The answer's blocks cannot be read (an unterminated block, a block with no file named)."""


def parse_blocks(answer: str) -> list[Block]:
    lines = answer.splitlines()
    blocks: list[Block] = []
    last_path = ""
    i = 0
    while i < len(lines):
        if not SEARCH.match(lines[i]):
            i += 1
            continue
        path = _path_before(lines, i) or last_path
        if not path:
            raise AnswerError(f"answer line {i + 1}: a SEARCH block with no file path on the line before it")
        start = i
        i += 1
        old: list[str] = []
        while i < len(lines) and not DIVIDER.match(lines[i]):
            old.append(lines[i])
            i += 1
        if i >= len(lines):
            raise AnswerError(f"answer line {start + 1}: a SEARCH block with no ======= line")
        i += 1
        new: list[str] = []
        while i < len(lines) and not REPLACE.match(lines[i]):
            new.append(lines[i])
            i += 1
        if i >= len(lines):
            raise AnswerError(f"answer line {start + 1}: a SEARCH block with no >>>>>>> REPLACE line")
        blocks.append(Block(path, _joined(old), _joined(new), start + 1))
        last_path = path
        i += 1
    return blocks


def _joined(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def _path_before(lines: list[str], i: int) -> str:
    """The file path on the nearest line above `i` that is neither blank nor a fence (a fence line may carry it:
    ```cpp op_kernel/add.cpp)."""
    j = i - 1
    while j >= 0:
        text = lines[j].strip()
        if FENCE.match(text):
            rest = text.lstrip("`~").strip()
            if "/" in rest or "." in rest:
                return _clean_path(rest.split()[-1])
            j -= 1
            continue
        if not text:
            j -= 1
            continue
        if SEARCH.match(text) or DIVIDER.match(text) or REPLACE.match(text):
            return ""
        return _clean_path(text)
    return ""


def _clean_path(text: str) -> str:
    """`**op_kernel/add.cpp**`, `` `op_kernel/add.cpp` ``, `File: op_kernel/add.cpp` -> op_kernel/add.cpp."""
    text = re.sub(r"^(file(name)?|path)\s*:\s*", "", text.strip(), flags=re.IGNORECASE)
    return text.strip("*`'\":# ").strip()


def resolve(path: str, root: str, editable: set[str]) -> str | None:
    """The absolute path of an editable source `path` names (relative to `root`, or by its bare name when only one
    editable file has it), or None."""
    norm = os.path.normpath(os.path.join(root, path)) if not os.path.isabs(path) else os.path.normpath(path)
    if norm in editable:
        return norm
    named = [p for p in editable if os.path.basename(p) == os.path.basename(path)]
    return named[0] if len(named) == 1 and "/" not in path.strip("./") else None


def to_edits(
    blocks: list[Block], texts: dict[str, str], root: str, editable: set[str]
) -> tuple[list[TextEdit], list[BlockMismatch]]:
    """Each block as an edit of the original texts; the blocks that cannot apply, with why. Blocks apply in order
    to the same file (a later block may search text an earlier one wrote), and the edits returned are whole-file
    replacements of the files they touch, so they compose like any other fix."""
    current: dict[str, str] = {}
    problems: list[BlockMismatch] = []
    for b in blocks:
        path = resolve(b.path, root, editable)
        if path is None:
            problems.append(BlockMismatch(b, _not_editable(b.path, root, editable)))
            continue
        text = current.get(path, texts[path])
        if not b.search.strip():
            problems.append(
                BlockMismatch(b, f"the SEARCH part of the block for {b.path} is empty: quote the lines to replace")
            )
            continue
        where = _find_lines(text, b.search)
        if len(where) != 1:
            problems.append(BlockMismatch(b, _mismatch(b, text, where)))
            continue
        at = where[0]
        current[path] = text[:at] + b.replace + text[at + len(b.search) :]
    edits = [_whole_file(path, texts[path], new) for path, new in current.items() if new != texts[path]]
    return edits, problems


def _find_lines(text: str, search: str) -> list[int]:
    """Where `search` (whole lines) starts in `text`: every character offset at a line start."""
    found, start = [], 0
    body = text if text.endswith("\n") else text + "\n"
    while (at := body.find(search, start)) != -1:
        if at == 0 or body[at - 1] == "\n":
            found.append(at)
        start = at + 1
    return found


def _mismatch(b: Block, text: str, where: list[int]) -> str:
    if where:
        return (
            f"the SEARCH part of the block for {b.path} (answer line {b.line}) matches {len(where)} places: "
            "include more surrounding lines so it matches exactly one"
        )
    lines = set(text.splitlines())
    stripped = {line.strip() for line in lines}
    for line in b.search.splitlines():
        if line not in lines:
            hint = " (it is there with other indentation or spacing)" if line.strip() in stripped else ""
            return (
                f"the SEARCH part of the block for {b.path} (answer line {b.line}) is not in the file: its line "
                f"`{line.strip()[:100]}` does not occur exactly{hint}; copy the old lines character for character"
            )
    return (
        f"the SEARCH part of the block for {b.path} (answer line {b.line}) is not in the file as consecutive lines; "
        "copy a contiguous run of the file's lines exactly"
    )


def _not_editable(path: str, root: str, editable: set[str]) -> str:
    names = ", ".join(sorted(os.path.relpath(p, root) for p in editable))
    return (
        f"{path} is not one of the operator's sources that may change ({names}); "
        "give the path relative to the operator's folder"
    )


def _whole_file(path: str, old: str, new: str) -> TextEdit:
    lines = old.split("\n")
    size = len(old.encode("utf-8"))
    return TextEdit(
        file=path,
        line=1,
        col=1,
        end_line=len(lines),
        end_col=len(lines[-1]) + 1,
        new_text=new,
        start=0,
        end=size,
    )
