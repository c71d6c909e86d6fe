"""What runs of an operator's cases showed, for lint rules that must prove a premise with real sizes.

Sizes decided at run time (a tile length the host tiling computes from the input shape) are unknown to a static
reading. When the operator has cases, the device runs each one and reports the facts below; a rule then states a
problem, or offers a fix as safe, only when every known case agrees. With no case, `RuleContext.facts` is empty
and a rule that needs them says what it could not prove (a note), never a warning.

Plain dataclasses: the device fills them (device -> analysis), the rules only read them.
"""

from __future__ import annotations

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

    def ub_used(self) -> int:
        """Bytes of UB the InitBuffers take, each buffer rounded up to 32 bytes as InitBuffer does."""
        return sum(b.num * (-(-b.bytes // 32) * 32) for b in self.buffers)
