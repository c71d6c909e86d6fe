"""A copy-in/compute/copy-out queue with one buffer: the next tile's copy waits for this tile's compute.

The rule states the problem only when it has proved the premise, because a second buffer is not free:
- the queue streams tiles: it is enqueued and dequeued in a loop, and its tensor is the target of a copy from GM
  (copy-in) or the source of a copy to GM (copy-out). A queue only allocated and freed (scratch), one that never
  meets GM (a statistics or work queue), or one enqueued outside any loop (loaded once) gains nothing;
- the loop runs more than once (with case facts: the EnQue ran more than once per block);
- a second buffer fits in the UB at the tile size the host chose: with case facts, every InitBuffer of the pipe as
  it ran, doubled queue included, for EVERY case; without, the static sizes when they are all known. When sizes
  are decided at run time and no case ran, the finding is a note naming the condition, and its fix is offered for
  verification on the emulator rather than as "Apply".
A host that sizes its tiles from the UB (`GetCoreMemSize(CoreMemType::UB, ...)`, `ubSize / ...`) leaves no room:
silent, unless it divides by the same buffer-count constant, in which case doubling halves the tile (said, with
the gain the cost model gives for the halved tile).

An output queue whose tile is filled the same way every iteration and then copied out gets better advice than a
second buffer: fill the tile once, before the loop, and copy it out as often as needed.
"""

from __future__ import annotations

import re

from analysis.apis import COPIES, PIPES
from analysis.findings import Fix
from analysis.knobs import is_tuned
from analysis.model import ApiCall, InitBufferCall, Loc
from analysis.observed import CaseFacts
from analysis.queues import init_buffer_queue
from analysis.rules._gain import double_buffer_gain
from analysis.rules.base import ALIGN_BYTES, Rule, RuleContext, edit

_HOST_UB_RE = re.compile(r"\b\w*ub_?(?:size|bytes|capacity|len)\w*\s*\)?\s*/(?![/*])", re.IGNORECASE)
_UB_QUERY_RE = re.compile(r"GetCoreMemSize\s*\([^;]*\bUB\b")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_LOOP_VAR_RE = re.compile(r"for\s*\(\s*(?:[\w:<>]+\s+)?(\w+)\s*=")


def _align(n: int) -> int:
    return -(-n // ALIGN_BYTES) * ALIGN_BYTES


def _base(text: str) -> str:
    return init_buffer_queue(text.split("[")[0]) if "." in text or "->" in text else text.split("[")[0].strip()


class SingleBuffer(Rule):
    id = "single-buffer"
    severity = "warning"
    summary = "queue with a single buffer in a tile loop (no double buffering)"

    def check(self, ctx: RuleContext):
        queues = {(q.owner, q.name) for q in ctx.model.queues if q.kind in ("TQue", "TQueBind")}
        reported: set[str] = set()
        for buf in ctx.model.init_buffers:
            if (buf.owner, buf.queue) not in queues:
                continue
            num = self._num(ctx, buf)
            if num is None or num[0] != 1:
                continue
            _, name, target = num
            if target is not None and target.file in ctx.sources \
                    and is_tuned(ctx.sources[target.file].line_text(target.line)):
                continue  # `// tilewise: tuned`: a measured choice
            stream = self._stream(ctx, buf)
            if stream is None:
                continue  # scratch, statistics or loaded-once queue: a second buffer would only cost UB
            direction, enqueues, fill = stream
            key = name or f"{buf.loc.file}:{buf.loc.line}"
            loc = target or buf.num.loc or buf.loc
            if fill is not None:  # its own advice, even when the shared constant was reported for another queue
                yield self.finding(fill[1], (
                    f"queue '{buf.queue}' ({name or buf.num.text} = 1) is filled with the same {fill[0]} every "
                    "iteration and copied out: fill the tile once before the loop and copy it out each iteration "
                    "(no AllocTensor/EnQue/DeQue per tile); that removes the vector work and the wait a second "
                    "buffer would only hide."))
                continue
            if key in reported:
                continue
            finding = self._judge(ctx, buf, direction, enqueues, name, target, loc, self._host_room(ctx, name))
            if finding is not None:
                reported.add(key)
                yield finding

    # ---- the judgement ---------------------------------------------------------------------------------------
    def _judge(self, ctx: RuleContext, buf: InitBufferCall, direction: str, enqueues: list[ApiCall],
               name: str | None, target: Loc | None, loc: Loc, host: str):
        label = f"queue '{buf.queue}' ({name or buf.num.text} = 1)"
        what = (f"{label} streams tiles ({direction}) through a loop with one buffer: the copy of tile i+1 waits "
                "for the compute of tile i, so the copies and the vector unit take turns.")
        halves = host == "halves"
        facts = [f for f in ctx.facts if self._ran(f, buf)]
        if ctx.facts:
            if not facts:
                return None  # no case reached this queue: nothing shows it is hot
            if not any(self._calls(f, enqueues) > 1 for f in facts):
                return None  # one tile per block in every case: nothing to overlap
            for f in facts:
                if not halves and not self._fits(ctx, f, buf):
                    return None  # the host's tile already fills the UB in this case: no room for a second buffer
            tile = max(self._bytes(f, buf) for f in facts)
            gain = double_buffer_gain(ctx, buf.owner, tile, halves)
            note = self._halving_note(name) if halves else ""
            fix = self._fix(name, target, gain, safe=not halves)
            return self.finding(loc, what + f" A second buffer fits in every case ({len(facts)} run); {gain}."
                                + note, fix, severity="info" if halves else "warning")
        if host == "full":
            return None  # the host divides the UB among its queues: a second buffer does not fit at its tile size
        sizes = [b for b in ctx.model.init_buffers if b.owner == buf.owner]
        if all(b.size.value is not None and b.num.value is not None for b in sizes) and not halves:
            total = sum(_align(b.size.value) * b.num.value for b in sizes) + _align(buf.size.value)
            if total > ctx.chip.ub_bytes:
                return None
            gain = double_buffer_gain(ctx, buf.owner, buf.size.value, False)
            return self.finding(loc, what + f" Doubled, the pipe's buffers take {total} of {ctx.chip.ub_bytes} "
                                f"bytes of UB; {gain}.", self._fix(name, target, gain, safe=True))
        if host == "reserved":
            gain = double_buffer_gain(ctx, buf.owner, None, False)
            return self.finding(loc, what + " The host sizes its tile so that the UB holds two buffers per queue, "
                                f"so a second one fits; {gain}.", self._fix(name, target, gain, safe=False))
        if halves:
            gain = double_buffer_gain(ctx, buf.owner, None, True)
            return self.finding(loc, what + f" {gain}." + self._halving_note(name),
                                self._fix(name, target, gain, safe=False), severity="info")
        gain = double_buffer_gain(ctx, buf.owner, None, False)
        return self.finding(loc, what + f" Unproven: the tile size is decided at run time, so this holds only if "
                            f"the host's tile leaves {buf.size.text} bytes (rounded to 32) free in the UB besides "
                            f"the pipe's other buffers; {gain}. Run `tilewise lint --cases` to check it per case.",
                            self._fix(name, target, gain, safe=False), severity="info")

    @staticmethod
    def _halving_note(name: str | None) -> str:
        return (f" The host sizes its tile from the UB divided by {name}: with {name} = 2 each tile halves, so "
                "the copies get shorter (the estimate counts that).")

    @staticmethod
    def _fix(name: str | None, target: Loc | None, gain: str, safe: bool) -> list[Fix]:
        if target is None:
            return []
        return [Fix(title=f"Enable double buffering ({name or 'buffers'} = 2): {gain}",
                    edits=[edit(target, "2")], safe=safe)]

    # ---- the buffer count ------------------------------------------------------------------------------------
    def _num(self, ctx: RuleContext, buf: InitBufferCall) -> tuple[int, str | None, Loc | None] | None:
        """(value, constant's name, where its literal stands) of the InitBuffer's buffer count, when it is known:
        a literal, a constant the model knows, or a local `uint32_t BUFFER_NUM = 1;` earlier in the function."""
        text = buf.num.text.strip()
        name = text.replace("this->", "") if re.fullmatch(r"[A-Za-z_][\w:>-]*", text) else None
        # The kernel's own constant of that name (a host file may define one too): its file's first, else any.
        named = [k for k in ctx.model.knobs if name and k.name == name.split("::")[-1]]
        knob = min(named, key=lambda k: (k.file != buf.loc.file, k.side != "kernel"), default=None)
        if knob is not None:
            return knob.value, knob.name, knob.literal
        if buf.num.value is not None:
            return buf.num.value, None, buf.num.loc
        if name is None or buf.loc.file not in ctx.sources:
            return None
        sf = ctx.sources[buf.loc.file]
        head = sf.data[:buf.loc.start]
        short = re.escape(name.split("::")[-1].encode())
        found = None
        for m in re.finditer(rb"\b(?:const\s+|constexpr\s+|static\s+)*(?:u?int\d*_t|int|unsigned|size_t|auto)\s+"
                             + short + rb"\s*=\s*(\d+)[uUlL]*\s*;", head):
            found = m
        if found is None:
            return None
        if re.search(rb"\b" + short + rb"\s*(?:[-+*/]?=(?!=)|\+\+|--)", head[found.end():]):
            return None  # assigned again before the InitBuffer: the value is not the literal's
        return int(found.group(1)), name, ctx.loc_at(sf, found.start(1), found.end(1))

    # ---- does the queue stream tiles? ------------------------------------------------------------------------
    def _stream(self, ctx: RuleContext, buf: InitBufferCall
                ) -> tuple[str, list[ApiCall], tuple[str, Loc] | None] | None:
        """(copy-in | copy-out, its EnQue calls, what a fill-only tile is filled with) when the queue carries tiles
        between GM and the vector unit inside a loop; None for scratch, statistics and loaded-once queues."""
        calls = ctx.model.calls_in(buf.owner)
        mine = [c for c in calls if c.receiver and init_buffer_queue(c.receiver) == buf.queue]
        enq = [c for c in mine if c.name == "EnQue"]
        deq = [c for c in mine if c.name == "DeQue"]
        if not any(c.in_loop for c in enq) or not any(c.in_loop for c in deq):
            return None
        copies = [c for c in calls if c.name in COPIES and len(c.args) >= 2 and c.in_loop]
        enq_vars = {(c.function, _base(c.args[0].text)) for c in enq if c.args and c.in_loop}
        copy_in = any((c.function, _base(c.args[0].text)) in enq_vars and ctx.is_global(c.args[1].text) is not False
                      and ctx.is_global(c.args[0].text) is not True for c in copies)
        deq_vars = {(c.function, v) for c in deq if c.in_loop for v in [self._assigned(ctx, c)] if v}
        copy_out = any((c.function, _base(c.args[1].text)) in deq_vars and ctx.is_global(c.args[0].text) is True
                       for c in copies)
        if not copy_in and not copy_out:
            return None
        fill = self._fill_only(ctx, buf, calls, mine) if copy_out and not copy_in else None
        return ("copy-in" if copy_in else "copy-out"), [c for c in enq if c.in_loop], fill

    @staticmethod
    def _assigned(ctx: RuleContext, call: ApiCall) -> str | None:
        """The tensor a DeQue/AllocTensor call gives: `y = q.DeQue<T>()` or `q.DeQue<T>(y)`."""
        if call.args:
            return _base(call.args[0].text)
        sf = ctx.sources.get(call.loc.file)
        if sf is None:
            return None
        line_start = sf.data.rfind(b"\n", 0, call.loc.start) + 1
        m = re.search(rb"(\w+)\s*=\s*$", sf.data[line_start:call.loc.start])
        return m.group(1).decode() if m else None

    def _fill_only(self, ctx: RuleContext, buf: InitBufferCall, calls: list[ApiCall],
                   mine: list[ApiCall]) -> tuple[str, Loc] | None:
        """What the queue's tile is filled with when the only vector work writing it in the loop is a Duplicate of
        a value that does not depend on the loop (the same tile every iteration), else None."""
        allocs = {(c.function, v) for c in mine if c.name == "AllocTensor" and c.in_loop
                  for v in [self._assigned(ctx, c)] if v}
        if not allocs:
            return None
        writers = [c for c in calls if PIPES.get(c.name) == "vector" and c.args
                   and (c.function, _base(c.args[0].text)) in allocs]
        if not writers or any(c.name != "Duplicate" for c in writers):
            return None
        for c in writers:
            value = c.args[1].text if len(c.args) > 1 else ""
            loop_vars = {m.group(1) for lp in c.loops for m in [_LOOP_VAR_RE.match(lp.header)] if m}
            if any(re.search(rf"\b{re.escape(v)}\b", value) for v in loop_vars) or not c.in_loop:
                return None
        return f"value ({writers[0].args[1].text if len(writers[0].args) > 1 else '?'})", writers[0].loc

    # ---- facts ------------------------------------------------------------------------------------------------
    @staticmethod
    def _ran(f: CaseFacts, buf: InitBufferCall) -> bool:
        return any(b.file == buf.loc.file and b.line == buf.loc.line for b in f.buffers)

    @staticmethod
    def _calls(f: CaseFacts, enqueues: list[ApiCall]) -> int:
        return max((f.site_calls.get((c.loc.file, c.loc.line), 0) for c in enqueues), default=0)

    @staticmethod
    def _bytes(f: CaseFacts, buf: InitBufferCall) -> int:
        return max(b.bytes for b in f.buffers if b.file == buf.loc.file and b.line == buf.loc.line)

    @staticmethod
    def _fits(ctx: RuleContext, f: CaseFacts, buf: InitBufferCall) -> bool:
        """Whether one more buffer of this queue fits beside every InitBuffer of its pipe as the case ran them
        (each rounded up to 32 bytes; a site that ran with several sizes counts with its largest)."""
        owners = {(b.loc.file, b.loc.line): b.owner for b in ctx.model.init_buffers}
        largest: dict[tuple[str, int], int] = {}
        for b in f.buffers:
            if owners.get((b.file, b.line), buf.owner) != buf.owner:
                continue  # another class's pipe
            used = b.num * _align(b.bytes)
            largest[(b.file, b.line)] = max(largest.get((b.file, b.line), 0), used)
        capacity = f.ub_capacity or ctx.chip.ub_bytes
        return sum(largest.values()) + _align(SingleBuffer._bytes(f, buf)) <= capacity

    @staticmethod
    def _host_room(ctx: RuleContext, name: str | None) -> str:
        """How the host's tile leaves room in the UB: '' when it does not size the tile from the UB; 'halves' when
        it divides the UB by this very buffer-count constant (more buffers, smaller tiles); 'reserved' when it
        divides by a buffer count of 2 or more of its own (room for a second buffer is already left); 'full' when
        it divides the UB among the queues with no buffer count (the tile fills it)."""
        statements: list[str] = []
        queried = False
        for p in ctx.model.host_files:
            sf = ctx.sources.get(p)
            if sf is None:
                continue
            text = _COMMENT_RE.sub("", sf.data.decode("utf-8", "replace"))
            queried = queried or _UB_QUERY_RE.search(text) is not None
            for m in _HOST_UB_RE.finditer(text):
                end = text.find(";", m.end())
                statements.append(text[m.start(): end if end > 0 else m.end()])
        if not statements:
            return "full" if queried else ""  # it asks the UB's size: its tile is made to fill what is there
        words = {w for st in statements for w in re.findall(r"[A-Za-z_]\w*", st)}
        if name and name.split("::")[-1] in words:
            return "halves"
        counts = [k.value for k in ctx.model.knobs if k.side == "host" and k.role == "buffer_num" and k.name in words]
        return "reserved" if any(v >= 2 for v in counts) else "full"
