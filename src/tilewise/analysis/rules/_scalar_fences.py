"""Whether a scalar GetValue/SetValue is already fenced by its own events, so a full barrier elsewhere is not what
orders it.

The API reference's way of reading a vector result on the scalar unit is an event pair into the scalar pipe before
the read (`SetFlag<HardEvent::V_S>(id); WaitFlag<HardEvent::V_S>(id);`, the intrinsic `set_flag(PIPE_V, PIPE_S, id)`
/ `wait_flag(...)`) and, before a pipe touches the tensor again, one out of it (`S_V`, `S_MTE3`, ...). A scalar
access with a wait into S just before it and a wait out of S just after it (only scalar work, event calls and
declarations between) is ordered against every pipe by those waits; a `PipeBarrier<PIPE_ALL>` other than the barrier
under judgement fences a side too. Anything else (a vector call, a copy, a call of the kernel's own functions, the
start or end of the block) ends the search unfenced: the check errs towards keeping the barrier.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from tilewise.analysis.apis import SYNC, SYSTEM
from tilewise.analysis.source import SourceFile

# Calls that neither touch a tensor on a pipe nor hide one: events, scalar accesses, the system queries, and the
# event-id helpers of TPipe.
_SCALAR_ONLY = frozenset(
    (*SYNC, *SYSTEM, "set_flag", "wait_flag", "GetValue", "SetValue", "GetTPipePtr", "FetchEventID")
    + ("AllocEventID", "ReleaseEventID")
)
_HARD_EVENT = re.compile(r"HardEvent::(\w+?)_(\w+)\b")
_PIPE_ARGS = re.compile(r"PIPE_(\w+)\s*,\s*PIPE_(\w+)")


def _wait_pipes(name: str, text: str) -> tuple[str, str] | None:
    """(source pipe, destination pipe) of a wait (`WaitFlag<HardEvent::V_S>`, `wait_flag(PIPE_V, PIPE_S, id)`)."""
    if name not in ("WaitFlag", "wait_flag"):
        return None
    m = _HARD_EVENT.search(text) or _PIPE_ARGS.search(text)
    return (m.group(1), m.group(2)) if m else None


def _is_full_barrier(name: str, text: str) -> bool:
    return name in ("PipeBarrier", "pipe_barrier") and "PIPE_ALL" in text


def _side_fenced(sf: SourceFile, stmts: list[Node], backwards: bool, barrier: tuple[str, int], calls_of) -> bool:
    """Walk the statements away from the access (`backwards`: the ones before it, nearest first): fenced at the
    first wait into the scalar pipe (before the access) or out of it (after), or at another full barrier; unfenced
    at the first call that may run on a pipe."""
    for stmt in stmts:
        calls = list(calls_of(sf, stmt))
        for node, name, _, _ in calls[::-1] if backwards else calls:
            text = sf.node_text(node)
            if _is_full_barrier(name, text) and (str(sf.path), node.start_byte) != barrier:
                return True
            pipes = _wait_pipes(name, text)
            if pipes is not None and pipes[1 if backwards else 0] == "S":
                return True
            if name not in _SCALAR_ONLY:
                return False
    return False


def fenced(sf: SourceFile, access: Node, barrier: tuple[str, int], calls_of) -> bool:
    """The scalar access `access` (a call node) is preceded by a wait into the scalar pipe and followed by a wait out
    of it, in its own block. `calls_of(sf, node)` lists (node, name, receiver, args) of the calls inside a node, in
    source order; `barrier` is (file, start byte) of the full barrier being judged, which does not count as a fence."""
    stmt = access
    while stmt.parent is not None and stmt.parent.type != "compound_statement":
        stmt = stmt.parent
    block = stmt.parent
    if block is None:
        return False
    siblings = [c for c in block.named_children if c.type != "comment"]
    at = next((i for i, c in enumerate(siblings) if c.id == stmt.id), None)
    if at is None:
        return False
    before = siblings[:at][::-1]
    after = siblings[at + 1 :]
    return _side_fenced(sf, before, True, barrier, calls_of) and _side_fenced(sf, after, False, barrier, calls_of)
