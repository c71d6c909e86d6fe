"""A copy-in/compute/copy-out queue with one buffer: the next tile's copy waits for this tile's compute.

The rule states the problem only when it has proved the premise, because a second buffer is not free:
- the queue streams tiles: it is enqueued and dequeued in a loop, and its tensor is the target of a copy from GM
  (copy-in) or the source of a copy to GM (copy-out). A queue only allocated and freed (scratch), one that never
  meets GM (a statistics or work queue), or one enqueued outside any loop (loaded once) gains nothing;
- the loop runs more than once (with case facts: the EnQue ran more than once per block), and the EnQue's call
  chain really reaches a loop (`_stream_loops`: call sites matched to the callee's class);
- something in that loop could overlap: no PipeBarrier<PIPE_ALL> (direct, through a macro, or in a called
  function), no WaitFlag making the next copy wait for the last one's later stage, no scalar element walk as the
  compute;
- a second buffer fits in the UB at the tile size the host chose: with case facts, every InitBuffer of the pipe as
  it ran, every queue the fix doubles (all that share the count's constant) doubled, for EVERY case; without, the
  static sizes when they are all known (names followed through members, class constants and constant tiling
  fields, `_static_sizes`). When sizes are decided at run time and no case ran, the finding is a note naming the
  condition, and its fix is offered for verification on the emulator rather than as "Apply".
A host that sizes its tiles from the UB (`GetCoreMemSize(CoreMemType::UB, ...)`, `(ubSize - reserve) / ...`, a
comparison of its buffers with the UB size) leaves no room (only the division whose value flows into the tiling
field this InitBuffer's size reads counts, with buffer counts valued in its own file: `_host_tiling`):
silent, unless it divides by the same buffer-count constant, in which case doubling halves the tile (said, with
the gain the cost model gives for the halved tile).

Gains: with timed cases, the timing model's ceiling for removing serialisation (CaseFacts.overlap_bound) of the
best case, naming its busiest pipe; under 1.05x in every case the finding is a note (true, not worth it). Without
timing, the structural estimate of _gain, stated as an upper bound.

An output queue whose tile is filled the same way every iteration and then copied out gets better advice than a
second buffer: fill the tile once, before the loop, and copy it out as often as needed.
"""

from __future__ import annotations

import re

from tilewise.analysis.apis import COPIES, PIPES
from tilewise.analysis.findings import Fix, Severity, edit
from tilewise.analysis.knobs import is_tuned
from tilewise.analysis.model import ApiCall, InitBufferCall, Loc
from tilewise.analysis.observed import CaseFacts
from tilewise.analysis.queues import init_buffer_queue
from tilewise.analysis.rules._barrier_deps import _calls
from tilewise.analysis.rules._gain import double_buffer_gain
from tilewise.analysis.rules._host_tiling import host_names, kernel_names
from tilewise.analysis.rules._static_sizes import resolve_size
from tilewise.analysis.rules._stream_loops import repeat_loops, serialised
from tilewise.analysis.rules.base import ALIGN_BYTES, Rule, RuleContext

# A name for the UB's size (ubSize, maxUbSize, UB_SIZE, ub_bytes ...), not a word that merely contains "ub".
_UB_WORD_RE = re.compile(
    r"\b(?:\w*[a-z_])?(?:UB|Ub|ub)_?"
    r"(?:[Ss]ize|SIZE|[Bb]ytes|BYTES|[Cc]apacity|CAPACITY|[Ll]en|LEN)\w*"
)
_UB_QUERY_RE = re.compile(r"GetCoreMemSize\s*\([^;]*\bUB\b|\bGetUbSize\s*\(")
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_BOUND = " - an upper bound, not a measurement"
_WORTH = 1.05  # below this ceiling in every case, a second buffer is true but not worth the UB and the change
_QUEUE_OPS = frozenset(("EnQue", "DeQue", "AllocTensor", "FreeTensor"))
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
            if (
                target is not None
                and target.file in ctx.sources
                and is_tuned(ctx.sources[target.file].line_text(target.line))
            ):
                continue  # `// tilewise: tuned`: a measured choice
            stream = self._stream(ctx, buf)
            if stream is None:
                continue  # scratch, statistics or loaded-once queue: a second buffer would only cost UB
            direction, enqueues, fill = stream
            loops = repeat_loops(ctx, [n for c in enqueues for n in [ctx.node(c.loc)] if n is not None])
            if loops == []:
                continue  # no call of its EnQue is in a loop (the looped caller was another class's): loaded once
            if fill is None and loops and serialised(ctx, loops, direction):
                continue  # barriers, waits or scalar work already serialise the stages: nothing left to overlap
            key = name or f"{buf.loc.file}:{buf.loc.line}"
            loc = target or buf.num.loc or buf.loc
            if fill is not None:  # its own advice, even when the shared constant was reported for another queue
                yield self.finding(
                    fill[1],
                    (
                        f"queue '{buf.queue}' ({name or buf.num.text} = 1) is filled with the same {fill[0]} every "
                        "iteration and copied out: fill the tile once before the loop and copy it out each iteration "
                        "(no AllocTensor/EnQue/DeQue per tile); that removes the vector work and the wait a second "
                        "buffer would only hide."
                    ),
                )
                continue
            if key in reported:
                continue
            finding = self._judge(ctx, buf, direction, enqueues, name, target, loc, self._host_room(ctx, name, buf))
            if finding is not None:
                reported.add(key)
                yield finding

    # ---- the judgement ---------------------------------------------------------------------------------------
    def _judge(
        self,
        ctx: RuleContext,
        buf: InitBufferCall,
        direction: str,
        enqueues: list[ApiCall],
        name: str | None,
        target: Loc | None,
        loc: Loc,
        host: str,
    ):
        label = f"queue '{buf.queue}' ({name or buf.num.text} = 1)"
        what = (
            f"{label} streams tiles ({direction}) through a loop with one buffer: the copy of tile i+1 waits "
            "for the compute of tile i, so the copies and the vector unit take turns."
        )
        halves = host == "halves"
        facts = [f for f in ctx.facts if self._ran(f, buf)]
        if ctx.facts:
            if not facts:
                return None  # no case reached this queue: nothing shows it is hot
            if not any(self._calls(f, enqueues) > 1 for f in facts):
                return None  # one tile per block in every case: nothing to overlap
            for f in facts:
                if not halves and not self._fits(ctx, f, buf, name):
                    return None  # the host's tile already fills the UB in this case: no room for a second buffer
            tile = max(self._bytes(f, buf) for f in facts)
            note = self._halving_note(name) if halves else ""
            severity: Severity = "info" if halves else "warning"
            ceiling = self._ceiling(facts)
            if ceiling is None:
                gain = double_buffer_gain(ctx, buf.owner, tile, halves) + _BOUND
            else:
                bound, case, pipe, share = ceiling
                gain = (
                    f"at most {bound:.2f}x on case {case}: the busiest pipe, {pipe}, is already busy "
                    f"{share:.0%} of the span"
                )
                if bound < _WORTH:
                    severity = "info"
                    note += (
                        " True but not worth it: overlapping the stages cannot beat the busiest pipe, which "
                        "already takes nearly the whole span in every case."
                    )
            fix = self._fix(name, target, gain, safe=not halves, host=self._host_knob(ctx, name) if halves else None)
            return self.finding(
                loc,
                what + f" A second buffer fits in every case ({len(facts)} run); {gain}." + note,
                fix,
                severity=severity,
            )
        static = self._static_sizes(ctx, buf, name)
        if host == "full" and static is None:
            return None  # the host divides the UB among its queues: a second buffer does not fit at its tile size
        if static is not None and not halves:
            total = sum(_align(size) * num * (2 if shared else 1) for size, num, shared in static)
            if total > ctx.chip.ub_bytes:
                return None  # doubled (every queue the count names), the buffers no longer fit
            tile = next(size for (size, _, _), b in zip(static, self._pipe(ctx, buf), strict=True) if b is buf)
            gain = double_buffer_gain(ctx, buf.owner, tile, False) + _BOUND
            return self.finding(
                loc,
                what + f" Doubled, the pipe's buffers take {total} of {ctx.chip.ub_bytes} bytes of UB; {gain}.",
                self._fix(name, target, gain, safe=True),
            )
        if host == "reserved":
            gain = double_buffer_gain(ctx, buf.owner, None, False) + _BOUND
            return self.finding(
                loc,
                what + " The host sizes its tile so that the UB holds two buffers per queue, "
                f"so a second one fits; {gain}.",
                self._fix(name, target, gain, safe=False),
            )
        if halves:
            gain = double_buffer_gain(ctx, buf.owner, None, True) + _BOUND
            return self.finding(
                loc,
                what + f" {gain}." + self._halving_note(name),
                self._fix(name, target, gain, safe=False, host=self._host_knob(ctx, name)),
                severity="info",
            )
        gain = double_buffer_gain(ctx, buf.owner, None, False) + _BOUND
        return self.finding(
            loc,
            what + f" Unproven: the tile size is decided at run time, so this holds only if "
            f"the host's tile leaves {buf.size.text} bytes (rounded to 32) free in the UB besides "
            f"the pipe's other buffers; {gain}. Run `tilewise lint --cases` to check it per case.",
            self._fix(name, target, gain, safe=False),
            severity="info",
        )

    @staticmethod
    def _ceiling(facts: list[CaseFacts]) -> tuple[float, str, str, float] | None:
        """(bound, case, busiest pipe, its share) for the case where removing serialisation could gain most: the
        timing model's ceiling with that case's sizes (CaseFacts.overlap_bound). None when no case was timed."""
        best = None
        for f in facts:
            bound = f.overlap_bound()
            if bound is None:
                continue
            pipe, share = max(f.pipe_ratio.items(), key=lambda kv: kv[1])
            if best is None or bound > best[0]:
                best = (bound, f.case, pipe.upper(), min(share, 1.0))
        return best

    @staticmethod
    def _pipe(ctx: RuleContext, buf: InitBufferCall) -> list[InitBufferCall]:
        return [b for b in ctx.model.init_buffers if b.owner == buf.owner]

    @staticmethod
    def _shares(b: InitBufferCall, buf: InitBufferCall, name: str | None) -> bool:
        """Whether the fix (the count's constant set to 2) doubles this buffer too."""
        if b is buf or (b.loc.file, b.loc.line) == (buf.loc.file, buf.loc.line):
            return True
        text = b.num.text.replace("this->", "").strip().split("::")[-1]
        return bool(name) and text == (name or "").split("::")[-1]

    def _static_sizes(
        self, ctx: RuleContext, buf: InitBufferCall, name: str | None
    ) -> list[tuple[int, int, bool]] | None:
        """(bytes, count, doubled by the fix) of every InitBuffer of the pipe, when the code fixes them all: the
        model's values, else names followed to one constant value (members, class constants, tiling fields)."""
        out = []
        for b in self._pipe(ctx, buf):
            size = b.size.value if b.size.value is not None else resolve_size(ctx, b.size.text)
            num = b.num.value if b.num.value is not None else resolve_size(ctx, b.num.text)
            if b is buf and num is None:
                num = 1  # the count this finding is about (a local `BUFFER_NUM = 1` the model did not evaluate)
            if size is None or num is None:
                return None
            out.append((size, num, self._shares(b, buf, name)))
        return out

    @staticmethod
    def _halving_note(name: str | None) -> str:
        return (
            f" The host sizes its tile from the UB divided by {name}: with {name} = 2 each tile halves, so "
            "the copies get shorter (the estimate counts that)."
        )

    @staticmethod
    def _fix(name: str | None, target: Loc | None, gain: str, safe: bool, host: Loc | None = None) -> list[Fix]:
        """Set the count to 2; where the host sizes its tile from the UB divided by a count of the same name, that
        one too (else the kernel would double buffers the host still sizes to fill the UB)."""
        if target is None:
            return []
        edits = [edit(target, "2")] + ([edit(host, "2")] if host is not None and host != target else [])
        return [Fix(title=f"Enable double buffering ({name or 'buffers'} = 2): {gain}", edits=edits, safe=safe)]

    @staticmethod
    def _host_knob(ctx: RuleContext, name: str | None) -> Loc | None:
        short = name.split("::")[-1] if name else None
        knob = next((k for k in ctx.model.knobs if k.side == "host" and k.name == short and k.value == 1), None)
        if knob is not None or short is None:
            return knob.literal if knob is not None else None
        for p in ctx.model.host_files:  # a plain `static int BUFFER_NUM = 1;`, which is not a knob
            sf = ctx.sources.get(p)
            m = sf is not None and re.search(
                rb"\b(?:static\s+|const\s+|constexpr\s+)*(?:u?int\d*_t|int|unsigned|size_t)\s+"
                + re.escape(short.encode())
                + rb"\s*=\s*(1)[uU]?\s*;",
                sf.data,
            )
            if sf is not None and m:
                return ctx.loc_at(sf, m.start(1), m.end(1))
        return None

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
        head = sf.data[: buf.loc.start]
        short = re.escape(name.split("::")[-1].encode())
        found = None
        for m in re.finditer(
            rb"\b(?:const\s+|constexpr\s+|static\s+)*(?:u?int\d*_t|int|unsigned|size_t|auto)\s+"
            + short
            + rb"\s*=\s*(\d+)[uUlL]*\s*;",
            head,
        ):
            found = m
        if found is None:
            return None
        if re.search(rb"\b" + short + rb"\s*(?:[-+*/]?=(?!=)|\+\+|--)", head[found.end() :]):
            return None  # assigned again before the InitBuffer: the value is not the literal's
        return int(found.group(1)), name, ctx.loc_at(sf, found.start(1), found.end(1))

    # ---- does the queue stream tiles? ------------------------------------------------------------------------
    def _stream(
        self, ctx: RuleContext, buf: InitBufferCall
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
        copy_in = any(
            (c.function, _base(c.args[0].text)) in enq_vars
            and ctx.is_global(c.args[1].text) is not False
            and ctx.is_global(c.args[0].text) is not True
            for c in copies
        )
        deq_vars = {(c.function, v) for c in deq if c.in_loop for v in [self._assigned(ctx, c)] if v}
        copy_out = any(
            (c.function, _base(c.args[1].text)) in deq_vars and ctx.is_global(c.args[0].text) is True for c in copies
        )
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
        m = re.search(rb"(\w+)\s*=\s*$", sf.data[line_start : call.loc.start])
        return m.group(1).decode() if m else None

    def _fill_only(
        self, ctx: RuleContext, buf: InitBufferCall, calls: list[ApiCall], mine: list[ApiCall]
    ) -> tuple[str, Loc] | None:
        """What the queue's tile is filled with when the only vector work writing it in the loop is a Duplicate of
        a value that does not depend on the loop (the same tile every iteration), else None."""
        allocs = {
            (c.function, v)
            for c in mine
            if c.name == "AllocTensor" and c.in_loop
            for v in [self._assigned(ctx, c)]
            if v
        }
        if not allocs:
            return None
        writers = [
            c
            for c in calls
            if PIPES.get(c.name) == "vector" and c.args and (c.function, _base(c.args[0].text)) in allocs
        ]
        if not writers or any(c.name != "Duplicate" for c in writers):
            return None
        # The tile dequeued again and written by vector work (`Add(acc, acc, x)` after `acc = que.DeQue()`): the fill
        # resets an accumulator, it is not the whole content copied out (embedding_dense_grad_v2's addResQue_).
        deqs = {(c.function, v) for c in mine if c.name == "DeQue" for v in [self._assigned(ctx, c)] if v}
        if any(PIPES.get(c.name) == "vector" and c.args and (c.function, _base(c.args[0].text)) in deqs for c in calls):
            return None
        for c in writers:
            value = c.args[1].text if len(c.args) > 1 else ""
            loop_vars = {m.group(1) for lp in c.loops for m in [_LOOP_VAR_RE.match(lp.header)] if m}
            if any(re.search(rf"\b{re.escape(v)}\b", value) for v in loop_vars) or not c.in_loop:
                return None
            if "[" in c.args[0].text or not self._only_filled(ctx, c, _base(c.args[0].text), value):
                return None  # a slice, a value computed in the loop, or other writers: not the same tile each time
        return f"value ({writers[0].args[1].text if len(writers[0].args) > 1 else '?'})", writers[0].loc

    @staticmethod
    def _only_filled(ctx: RuleContext, dup: ApiCall, tensor: str, value: str) -> bool:
        """Whether, in the Duplicate's function, nothing else writes the tile (no SetValue, no raw address, no call
        of the kernel's own code with it) and the fill value is not computed there."""
        found = ctx.node(dup.loc)
        if found is None:
            return False
        sf, node = found
        fn = node
        while fn.parent is not None and fn.type != "function_definition":
            fn = fn.parent
        text = sf.node_text(fn)
        t = re.escape(tensor)
        if re.search(rf"\b{t}\s*(?:\[[^\]]*\])?\s*\.\s*(?:SetValue|GetPhyAddr|ReinterpretCast|SetAddr)\b", text):
            return False
        for _, name, _, args in _calls(sf, fn):
            if name in PIPES or name in COPIES or name in _QUEUE_OPS:
                continue
            if any(re.match(rf"\s*(?:this->)?{t}\b", a) for a in args):
                return False  # handed to other code (a helper, a SIMT call): it may write the tile
        for v in re.findall(r"[A-Za-z_]\w*", value):
            if re.search(rf"\b{re.escape(v)}\s*(?:[-+*/|&]?=(?!=)|\+\+|--)", text):
                return False  # the value is computed in the function: it may change per iteration
        return True

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
    def _fits(ctx: RuleContext, f: CaseFacts, buf: InitBufferCall, name: str | None) -> bool:
        """Whether the pipe's InitBuffers fit as the case ran them, with every queue the fix doubles doubled (each
        rounded up to 32 bytes; a site that ran with several sizes counts with its largest)."""
        sites = {(b.loc.file, b.loc.line): b for b in ctx.model.init_buffers}
        largest: dict[tuple[str, int], int] = {}
        for b in f.buffers:
            site = sites.get((b.file, b.line))
            if site is not None and site.owner != buf.owner:
                continue  # another class's pipe
            doubled = site is not None and SingleBuffer._shares(site, buf, name)
            used = b.num * _align(b.bytes) * (2 if doubled else 1)
            largest[(b.file, b.line)] = max(largest.get((b.file, b.line), 0), used)
        capacity = f.ub_capacity or ctx.chip.ub_bytes
        return sum(largest.values()) <= capacity

    @staticmethod
    def _host_room(ctx: RuleContext, name: str | None, buf: InitBufferCall | None = None) -> str:
        """How the host's tile leaves room in the UB: '' when it does not size the tile from the UB; 'halves' when
        it divides the UB by this very buffer-count constant (more buffers, smaller tiles); 'reserved' when it
        divides by a buffer count of 2 or more of its own (room for a second buffer is already left); 'full' when
        it divides the UB among the queues with no buffer count, or fits its tile to the UB some other way (compares
        its buffers with the UB size, or asks for the UB size)."""
        found: list[tuple[str, str, str]] = []  # (file, its text, statement)
        queried = False
        for p in ctx.model.host_files:
            sf = ctx.sources.get(p)
            if sf is None:
                continue
            text = _COMMENT_RE.sub("", sf.data.decode("utf-8", "replace"))
            queried = queried or _UB_QUERY_RE.search(text) is not None
            for st in re.split(r"[;{}]", text):
                m = _UB_WORD_RE.search(st)
                if m is None:
                    continue
                if re.search(r"/(?![/*])", st[m.end() :]):
                    found.append((p, text, st))  # the UB (less a reserve) divided into tiles
                elif re.search(r"[<>]=?\s*$", st[: m.start()]) or re.match(r"\s*\)?\s*[<>]", st[m.end() :]):
                    queried = True  # the buffers are fitted to the UB by a comparison
        if not found:
            return "full" if queried else ""  # it asks the UB's size: its tile is made to fill what is there
        # Only the division that computes the tiling value this InitBuffer's size reads speaks for it: another
        # tiling path's (another key's kernel class, another chip's) says nothing about this tile.
        want = kernel_names(ctx, buf.size.text, buf.loc.file) if buf is not None else set()
        linked = [f for f in found if want and host_names(f[1], f[2]) & want]
        if linked:
            found = linked
        words = {w for _, _, st in found for w in re.findall(r"[A-Za-z_]\w*", st)}
        if name and name.split("::")[-1] in words:
            return "halves"
        host = [k for k in ctx.model.knobs if k.side == "host" and k.role == "buffer_num" and k.name in words]
        # A count's value from the division's own file: two tiling files may each define LNG_MAX_BUFFER_NUM.
        files = {p for p, _, _ in found}
        counts = [
            k.value for k in host if k.file in files or not any(o.name == k.name and o.file in files for o in host)
        ]
        totals = [v for v in counts if v > 2]
        if buf is not None and totals:
            # A count above a queue's depth of 2 counts buffers over all queues: `UB / LNG_MAX_BUFFER_NUM` with
            # LNG_MAX_BUFFER_NUM = 6 and six single-buffered queues in the class leaves the UB full. Room for a
            # second buffer per queue is left only when the count covers twice the class's single buffers.
            singles = sum(1 for b in ctx.model.init_buffers if b.owner == buf.owner and b.queue and b.num.value == 1)
            if max(totals) < 2 * singles:
                return "full" if max(totals) <= singles else ""
        if any(v >= 2 for v in counts):
            return "reserved" if linked or buf is None else ""  # room left on another path: no evidence here
        return "full"
