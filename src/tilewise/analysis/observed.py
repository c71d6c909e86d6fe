"""What runs of an operator's cases showed, for lint rules that must prove a premise with real sizes.

Sizes decided at run time (a tile length the host tiling computes from the input shape) are unknown to a static
reading. When the operator has cases, the device runs each one and reports the facts below; a rule then states a
problem, or offers a fix as safe, only when every known case agrees. With no case, `RuleContext.facts` is empty
and a rule that needs them says what it could not prove (a note), never a warning.

Plain dataclasses: the device fills them (device -> analysis), the rules only read them.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field


@dataclass(frozen=True)
class BufferSeen:
    """One TPipe::InitBuffer call as it ran in block 0: where, how many buffers, bytes each (before rounding)."""

    file: str
    line: int
    num: int
    bytes: int


@dataclass
class CaseFacts:
    """One case's run: the launch, the UB it laid out, and how often each call site ran in the busiest block."""

    case: str
    block_dim: int | None = None
    ub_capacity: int | None = None  # the chip's UB bytes the run had
    buffers: list[BufferSeen] = field(default_factory=list)
    site_calls: dict[tuple[str, int], int] = field(default_factory=dict)  # (file, line) -> calls, busiest block
    tiling: dict[str, int] = field(default_factory=dict)  # tiling field -> value the host set (scalars only)
    time_us: float | None = None
    launch_us: float = 0.0  # the launch's fixed cost inside time_us
    pipe_ratio: dict[str, float] = field(default_factory=dict)  # pipe -> share of a core's span it is busy
    # (file, line) -> the most bytes one call of the DataCopy/DataCopyPad there moved, busiest block: how small the
    # copies a run made were, whatever computed their length
    copy_bytes: dict[tuple[str, int], int] = field(default_factory=dict)

    def overlap_bound(self) -> float | None:
        """How much faster the run could get at most if its pipes overlapped perfectly: each core's span cannot
        shrink below its busiest pipe's busy time, and the launch costs what it costs. The ceiling, from the timing
        model with this case's sizes, for a fix that only removes serialisation (a second buffer, a barrier)."""
        busiest = max(self.pipe_ratio.values(), default=0.0)
        if not self.time_us or busiest <= 0:
            return None
        kernel = max(self.time_us - self.launch_us, 0.0)
        return self.time_us / (self.launch_us + kernel * min(busiest, 1.0))

    def ub_used(self) -> int:
        """Bytes of UB the InitBuffers take, each buffer rounded up to 32 bytes as InitBuffer does."""
        return sum(b.num * (-(-b.bytes // 32) * 32) for b in self.buffers)


def moved(facts: list[CaseFacts], ran_on: dict[str, str], now: dict[str, str]) -> list[CaseFacts]:
    """The facts of runs on sources `ran_on`, carried to the edited sources `now`: each (file, line) goes to the
    line the edit kept it on (lines inserted or removed above move it). A site whose line was edited is dropped, so
    a rule falls back to what it can prove statically rather than reading another line's facts. An editor keeps
    the facts of the last save this way while the user types."""
    if ran_on == now:
        return facts
    maps: dict[str, dict[int, int]] = {}

    def where(file: str, line: int) -> int | None:
        if file not in maps:
            maps[file] = _line_map(ran_on.get(file), now.get(file))
        return maps[file].get(line)

    out = []
    for f in facts:
        buffers = [
            BufferSeen(b.file, new, b.num, b.bytes) for b in f.buffers if (new := where(b.file, b.line)) is not None
        ]
        calls = {(file, new): n for (file, line), n in f.site_calls.items() if (new := where(file, line)) is not None}
        copies = {(file, new): n for (file, line), n in f.copy_bytes.items() if (new := where(file, line)) is not None}
        out.append(
            CaseFacts(
                case=f.case,
                block_dim=f.block_dim,
                ub_capacity=f.ub_capacity,
                buffers=buffers,
                site_calls=calls,
                tiling=dict(f.tiling),
                time_us=f.time_us,
                launch_us=f.launch_us,
                pipe_ratio=dict(f.pipe_ratio),
                copy_bytes=copies,
            )
        )
    return out


def _line_map(old: str | None, new: str | None) -> dict[int, int]:
    """1-based old line -> new line, for the lines the edit kept (difflib's matching blocks of the two texts)."""
    if old is None or new is None:
        return {}
    old_lines, new_lines = old.splitlines(), new.splitlines()
    if old_lines == new_lines:
        return {i: i for i in range(1, len(old_lines) + 1)}
    # An edit is local: the lines before and after it are kept as they are, and difflib (quadratic at worst, ~30 ms
    # over a whole 3000-line kernel) matches only what lies between. This runs on every keystroke once facts exist.
    head = 0
    while head < min(len(old_lines), len(new_lines)) and old_lines[head] == new_lines[head]:
        head += 1
    tail = 0
    while (
        tail < min(len(old_lines), len(new_lines)) - head
        and old_lines[len(old_lines) - 1 - tail] == new_lines[len(new_lines) - 1 - tail]
    ):
        tail += 1
    out = {i: i for i in range(1, head + 1)}
    shift = len(new_lines) - len(old_lines)
    out.update({i: i + shift for i in range(len(old_lines) - tail + 1, len(old_lines) + 1)})
    old_mid, new_mid = old_lines[head : len(old_lines) - tail], new_lines[head : len(new_lines) - tail]
    for block in difflib.SequenceMatcher(None, old_mid, new_mid, autojunk=False).get_matching_blocks():
        for k in range(block.size):
            out[head + block.a + k + 1] = head + block.b + k + 1
    return out
