"""How far the timing model is typically off, by kind of change, and what that means for a predicted gain.

No NPU is at hand, so every time and speedup tilewise reports comes from its timing model. How far that model is
from hardware is measured by `benchmarks/fidelity.py` on published slow/fast pairs. Its residuals are written to
`analysis/data/model_error.json` (`python benchmarks/fidelity.py --write-error`). This module reads that file and
turns it into what a user sees:

- a range around a simulated time (`time_range`): the time divided and multiplied by the model's typical error on
  absolute times;
- a verdict on a predicted gain (`gain_note`): a speedup smaller than the typical error for that kind of change
  ("1.08x, within the model's error for core-count changes: verify on hardware") is not evidence.

The error of one kind is `exp(mean |ln(predicted / published)|)` over the suite's cases of that kind. A kind with
no case falls back to the overall figure.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.model import KnobRole

ERROR_FILE = Path(__file__).resolve().parent / "data" / "model_error.json"

# The kind of change a tuned knob makes, in the fidelity suite's words (benchmarks/fidelity/cases/*/case.toml).
KIND_OF_ROLE: dict[KnobRole, str] = {"block_dim": "core-count", "tile": "tile-size", "buffer_num": "double-buffer"}


class KindError(BaseModel):
    model_config = ConfigDict(extra="forbid")

    factor: float = Field(ge=1.0)  # exp(mean |ln(predicted / published)|)
    cases: int = Field(ge=1)


class ModelError(BaseModel):
    """The file's content: where it was measured, the error on speedups per kind and overall, and on absolute
    times (cases that publish both times)."""

    model_config = ConfigDict(extra="forbid")

    source: str
    overall: KindError
    absolute: KindError | None = None
    kinds: dict[str, KindError] = {}

    def factor_for(self, kinds: list[str]) -> tuple[float, str]:
        """The typical error for a change of these kinds (the largest of them) and how to name it."""
        known = [(self.kinds[k].factor, k) for k in kinds if k in self.kinds]
        if not known:
            return self.overall.factor, "changes of this kind"
        factor, kind = max(known)
        return factor, f"{kind} changes"

    def time_range(self, time_us: float) -> tuple[float, float] | None:
        if self.absolute is None:
            return None
        return time_us / self.absolute.factor, time_us * self.absolute.factor

    def gain_note(self, speedup: float, kinds: list[str]) -> str | None:
        """A warning when `speedup` is within the model's typical error for these kinds of change, else None."""
        factor, what = self.factor_for(kinds)
        if speedup >= factor:
            return None
        return f"{speedup:.2f}x is within the model's typical error for {what} ({factor:.2f}x): verify on hardware"


@cache
def load_model_error(path: Path = ERROR_FILE) -> ModelError | None:
    """The measured error, or None when no suite has been run (the file is absent)."""
    if not path.exists():
        return None
    try:
        return ModelError.model_validate(json.loads(path.read_text()))
    except ValidationError as exc:
        first = exc.errors()[0]
        why = f"{'.'.join(map(str, first['loc']))}: {first['msg']}"
    except ValueError as exc:  # not JSON
        why = str(exc)
    raise TilewiseError(
        str(path),
        0,
        f"model error file is invalid ({why}); regenerate it with python benchmarks/fidelity.py --write-error",
    )


def likely_range(time_us: float | None) -> tuple[float, float] | None:
    """The range the measured error puts around a simulated time; None without a time or an error file."""
    error = load_model_error()
    return error.time_range(time_us) if error is not None and time_us is not None else None


# The kind of change a lint rule's fix makes, in the same words: what a verified fix's gain is compared with.
KIND_OF_RULE: dict[str, str] = {
    "low-block-dim": "core-count",
    "small-copy": "tile-size",
    "single-buffer": "double-buffer",
    "pipe-all-in-loop": "double-buffer",
    "scalar-loop": "scalar-to-vector",
    "aligned-datacopypad": "data-copy",
    "unaligned-datacopy": "data-copy",
}


def kinds_of_rule(rule: str) -> list[str]:
    """The kind of change a rule's fix makes ([] for a rule whose fixes are about correctness, not speed)."""
    return [KIND_OF_RULE[rule]] if rule in KIND_OF_RULE else []


def gain_note(speedup: float | None, kinds: list[str]) -> str | None:
    """The note for a predicted gain within the model's typical error; None without a gain or an error file."""
    error = load_model_error()
    return error.gain_note(speedup, kinds) if error is not None and speedup is not None else None


def kinds_of_roles(roles: list[KnobRole]) -> list[str]:
    """The kinds of change that moving knobs of these roles makes (roles with no kind are left out)."""
    return sorted({KIND_OF_ROLE[r] for r in roles if r in KIND_OF_ROLE})
