"""pipe-sync: stages wait for each other through queues or paired SetFlag/WaitFlag events, never through a full
PipeBarrier<PIPE_ALL> inside the tile loop (which drains every pipe each iteration, so nothing overlaps).

Rewind: a SetFlag/WaitFlag pair becomes `PipeBarrier<PIPE_ALL>();`; in a queue-driven kernel, a full barrier is
added at the end of each tile loop's body that reaches the queues. Detect: the pipe-all-in-loop lint rule, whose
fix deletes the barrier where the queues already order the stages.

Example (slow -> fast): `CopyIn(i); Compute(i); CopyOut(i); PipeBarrier<PIPE_ALL>();` -> the barrier removed.
"""

from __future__ import annotations

import re

from tilewise.analysis.motifs.base import (
    Motif,
    MotifContext,
    Rewound,
    indent_at,
    line_end,
    line_start,
    splice,
    splice_many,
)

_BARRIER = "PipeBarrier<PIPE_ALL>();"
_QUEUE_OPS = ("EnQue", "DeQue")


class PipeSync(Motif):
    def rewind(self, ctx: MotifContext) -> list[Rewound]:
        return self._flags(ctx) or self._loops(ctx)

    def _flags(self, ctx: MotifContext) -> list[Rewound]:
        """Each SetFlag with a WaitFlag of the same event right after it becomes one full barrier."""
        out = []
        for set_call in ctx.calls("SetFlag"):
            found = ctx.statement(set_call)
            if found is None:
                continue
            sf, stmt = found
            nxt = stmt.next_named_sibling
            if nxt is None or nxt.type != "expression_statement":
                continue
            want = (set_call.template_args or "").strip()
            m = re.match(r"\s*WaitFlag\s*<\s*([^>]*)>", sf.node_text(nxt))
            if m is None or m.group(1).strip() != want:
                continue
            spans = [
                (stmt.start_byte, stmt.end_byte, _BARRIER),
                (line_start(sf, nxt.start_byte), line_end(sf, nxt.end_byte), ""),
            ]
            text = splice_many(sf, spans)
            out.append(
                Rewound(self.id, f"SetFlag/WaitFlag<{want}> -> {_BARRIER}", {sf.path: text}, sf.path, set_call.loc.line)
            )
        return out

    def _loops(self, ctx: MotifContext) -> list[Rewound]:
        """A full barrier at the end of each tile loop whose body reaches EnQue/DeQue (directly or through a
        method of the kernel's own)."""
        staged = {c.function for c in ctx.calls(*_QUEUE_OPS) if c.function}
        out = []
        for path in ctx.kernel_files:
            sf = ctx.sources[path]
            stack = [sf.tree.root_node]
            while stack:
                n = stack.pop()
                stack.extend(reversed(n.children))
                if n.type != "for_statement":
                    continue
                body = n.child_by_field_name("body")
                if body is None or body.type != "compound_statement":
                    continue
                text = sf.node_text(body)
                words = set(re.findall(r"\b(\w+)\s*\(", text))
                if not (words & set(_QUEUE_OPS) or words & staged) or "PipeBarrier" in text:
                    continue
                close = body.end_byte - 1  # the body's closing brace
                last = body.named_children[-1] if body.named_children else None
                if last is None:
                    continue
                indent = indent_at(sf, last.start_byte)
                at = line_end(sf, last.end_byte)
                new = splice(sf, at, at, f"{indent}{_BARRIER}\n") if at <= close else splice(sf, close, close, _BARRIER)
                line = sf.line_col(last.end_byte)[0]
                out.append(Rewound(self.id, f"{_BARRIER} at the end of the tile loop", {path: new}, path, line))
        return out


MOTIF = PipeSync(
    id="pipe-sync",
    title="Order the stages with queues or events, not a full pipe barrier",
    removes="PipeBarrier<PIPE_ALL> inside a tile loop",
    kinds=("double-buffer",),
    rule="pipe-all-in-loop",
)
