"""The parameters of tilewise's own messages, validated once where they enter the server.

`tilewise/run`, `tilewise/tune`, `tilewise/optimize` and `tilewise/verifySuggestions` are custom requests: pygls
hands their params over as nested namedtuples (it has no type for them), so `validated` turns them into a pydantic
model before the handler runs, and bad params (a missing `uri`, a budget of 0, a misspelt key) are answered with an
Invalid Params error that names each bad field instead of failing halfway through a run. The "Verify on the emulator"
command's argument gets the same model treatment through the converter pygls structures command arguments with
(`register_command_args`).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pygls.exceptions import JsonRpcInvalidParams

from tilewise.lsp.state import known_strategy

M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")


class _Params(BaseModel):
    """Unknown keys are refused: a misspelt `budjet` would otherwise be ignored without a word."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)


class _JobParams(_Params):
    uri: str = Field(min_length=1, description="a document of the operator")
    case: str | None = Field(None, description="a case of its tilewise.toml; default: the first (run) or all (tune)")
    # The client's own progress token: its UI then shows the server's progress messages.
    work_done_token: str | int | None = Field(None, alias="workDoneToken")
    partial_result_token: str | int | None = Field(None, alias="partialResultToken")  # allowed, unused


class RunParams(_JobParams):
    """`tilewise/run`: one case on the emulator."""

    timeout: float | None = Field(None, gt=0, description="seconds before the run is stopped (device default)")
    trace: str | None = Field(None, description="where to write a Chrome trace of the run")


class TuneParams(_JobParams):
    """`tilewise/tune`: search the knobs' values; strategy and budget default to the settings'."""

    strategy: str | None = None
    budget: int | None = Field(None, ge=1, le=10_000)

    @field_validator("strategy")
    @classmethod
    def _known_strategy(cls, strategy: str | None) -> str | None:
        return None if strategy is None else known_strategy(strategy)


class OptimizeParams(_Params):
    """`tilewise/optimize`: the closed loop (search/optimize.py), tiling and kernel in turn, on every case."""

    uri: str = Field(min_length=1, description="a document of the operator")
    budget: int = Field(48, ge=1, le=10_000, description="measured candidates: configurations and rewrites together")
    llm: bool = Field(False, description="let the model rewrite too (settings `tilewise.llm`, the key from the env)")
    timeout: float | None = Field(None, gt=0, description="seconds before one run is stopped (device default)")
    work_done_token: str | int | None = Field(None, alias="workDoneToken")
    partial_result_token: str | int | None = Field(None, alias="partialResultToken")  # allowed, unused


class VerifySuggestionsParams(_Params):
    """`tilewise/verifySuggestions`: verify the rewrites of the `top` motifs that fit, on every case."""

    uri: str = Field(min_length=1, description="a document of the operator")
    top: int = Field(5, ge=1, le=50, description="how many of the ranked motifs to verify")
    work_done_token: str | int | None = Field(None, alias="workDoneToken")
    partial_result_token: str | int | None = Field(None, alias="partialResultToken")  # allowed, unused


class VerifyFixArgs(_Params):
    """The argument of the `tilewise.verifyFix` command (results.verify_arguments): which finding and fix."""

    uri: str = Field(min_length=1)
    rule: str
    start: int
    title: str


class CancelJobArgs(_Params):
    """The argument of the `tilewise.cancelJob` command (lsp/jobs.py): the jobs of the operator holding `uri`, of
    one `kind` when given (run, tune, optimize, verify-suggestions, verify-fix)."""

    uri: str = Field(min_length=1, description="a document of the operator")
    kind: str | None = None


def describe_errors(exc: ValidationError) -> str:
    """One `field: what is wrong` per bad field, on one line."""
    parts = []
    for error in exc.errors():
        where = ".".join(str(x) for x in error["loc"]) or "params"
        parts.append(f"{where}: {error['msg']}")
    return "; ".join(parts)


def _plain(raw: object) -> object:
    """pygls's namedtuples (and lists of them) back into JSON-like dicts and lists."""
    if hasattr(raw, "_asdict"):
        return {k: _plain(v) for k, v in raw._asdict().items()}
    if isinstance(raw, dict):
        return {k: _plain(v) for k, v in raw.items()}
    if isinstance(raw, list | tuple):
        return [_plain(v) for v in raw]
    return raw


def parse(method: str, model: type[M], raw: object) -> M:
    """`raw` params as `model`, else an Invalid Params error that says what to change."""
    plain = {} if raw is None else _plain(raw)
    if not isinstance(plain, dict):
        raise JsonRpcInvalidParams(f"{method}: params must be an object with the fields {_fields(model)}")
    try:
        return model.model_validate(plain)
    except ValidationError as exc:
        raise JsonRpcInvalidParams(f"{method}: bad params: {describe_errors(exc)}") from None


def _fields(model: type[BaseModel]) -> str:
    return ", ".join(f.alias or name for name, f in model.model_fields.items())


def validated(method: str, model: type[M]) -> Callable[[Callable[[Any, M], Awaitable[R]]], Callable[..., Awaitable[R]]]:
    """A request handler `(ls, params: model)` registered for raw params: they are parsed once, here."""

    def wrap(fn: Callable[[Any, M], Awaitable[R]]) -> Callable[..., Awaitable[R]]:
        @functools.wraps(fn)
        async def handler(ls: Any, params: object) -> R:
            return await fn(ls, parse(method, model, params))

        return handler

    return wrap


def register_command_args(server: Any, model: type[M], command: str) -> None:
    """Let pygls structure a command's argument as `model` (it looks at the handler's annotation)."""

    def structure(raw: object, _type: type) -> M:
        return parse(command, model, raw)

    server.protocol._converter.register_structure_hook(model, structure)


class ChartsParams(_Params):
    """`tilewise/charts`: the payload of one view (server/report/payloads.py) for the operator holding `uri`."""

    uri: str = Field(min_length=1, description="a document of the operator")
    kind: Literal["timeline", "roofline", "convergence"]


class ApplyConfigParams(_Params):
    """`tilewise/applyConfig`: the edit giving the operator's knobs these values (a configuration a tune measured)."""

    uri: str = Field(min_length=1, description="a document of the operator")
    config: dict[str, int] = Field(min_length=1)
