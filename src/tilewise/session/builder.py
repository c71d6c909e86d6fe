"""The session a `run`, `tune`, `suggest` or `optimize` starts from, built the same way for a command line and for an
editor request: the device, the operator, the cases, the `--input` arrays and the problems loading found.

A command line and an editor say the same things in other words. `SessionRequest` is what either says: the operator
(its path, with the editor's unsaved texts over the files on disk), which cases (manifest case names, and on the
command line --shape/--dtype/--attr/--input describing one), and the device (name, chip, timeout). `build_session`
turns it into a `Session`, a plain dataclass the command or the request handler then runs, tunes or optimises.

Errors are `TilewiseError`s whose "file" is the file or flag at fault (`--device`, `--case`, `--shape`, a .npy, the
tilewise.toml), so each prints as one line with the fix. An operator with problems (a syntax error, a bad
tilewise.toml) still gives a session: the problems are handed to `on_problems` as soon as the operator is loaded, so
a command says them before any later error, as it always has.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np

from tilewise.analysis.errors import TilewiseError
from tilewise.analysis.manifest import Case
from tilewise.analysis.model import Problem
from tilewise.analysis.operator import Operator, load_operator
from tilewise.device.protocol import Device
from tilewise.session.cases import TensorRef, build_case, input_arrays, load_arrays

if TYPE_CHECKING:
    from tilewise.search.cache import ResultsCache
    from tilewise.search.executors import Executor
    from tilewise.search.tuner import Tuner


@dataclass(frozen=True)
class DeviceChoice:
    """The device a request names: `emulator`, `npu` or `npu:ID` (device/registry.py), on a chip (a name or a chip
    JSON file; None: the device's default), with the run timeout and an NPU's toolkit, warm-up and launch count.
    `flag` is what an unknown name's error points at: `--device` on the command line, `tilewise.device` in the
    editor's settings."""

    name: str = "emulator"
    chip: str | None = None
    timeout_s: float | None = None
    cann: str | None = None
    warm_up: int = 5
    launches: int = 1
    flag: str = "--device"

    def open(self) -> Device:
        """The device; an unknown name or an NPU that cannot be used is a TilewiseError naming `flag`."""
        from tilewise.device.registry import make_device

        try:
            return make_device(
                self.name,
                chip=self.chip,
                timeout_s=self.timeout_s,
                cann=self.cann,
                warm_up=self.warm_up,
                launches=self.launches,
            )
        except ValueError as exc:
            raise TilewiseError(self.flag, 0, str(exc)) from None


@dataclass(frozen=True)
class SessionRequest:
    """What a command line or an editor request says about the operator, its cases and the device.

    - `path`: the operator's folder or any file in it; `overlay`: texts (by absolute path) read instead of the files
      on disk, the editor's unsaved documents.
    - `cases`: manifest case names (none: all of them, or for `one_case` the first); `shape`, `dtype`, `attr` and
      `inputs` are the NAME=VALUE flags (session/cases.py) that describe one case on top of the manifest's.
    - `one_case`: `tilewise run`: exactly one case, the manifest's first or the one named, flags on top.
    - `manifest_purpose`: an editor request: the manifest's cases only (the editor has no shape flags); without any,
      the error says to add a tilewise.toml `manifest_purpose` ("to run or tune it").
    """

    path: str
    overlay: Mapping[str, str] | None = None
    cases: Sequence[str] = ()
    shape: Sequence[str] = ()
    dtype: Sequence[str] = ()
    attr: Sequence[str] = ()
    inputs: Sequence[str] = ()
    one_case: bool = False
    manifest_purpose: str | None = None
    device: DeviceChoice = field(default_factory=DeviceChoice)

    @property
    def describes_a_case(self) -> bool:
        """Whether any of --shape/--dtype/--attr/--input is given: they describe one case together."""
        return bool(self.shape or self.dtype or self.attr or self.inputs)


@dataclass(frozen=True)
class TuneOptions:
    """How a tune searches (search/tuner.py): the strategy, how many configurations to measure (the shipped one
    included), the strategy's seed and how many evaluations run at once."""

    strategy: str = "evo"
    budget: int = 32
    seed: int = 0
    workers: int = 2


@dataclass
class Session:
    """What a run, tune, suggest or optimize works on: the device, the operator as loaded (with the problems loading
    found, which were said and do not stop the work), the cases chosen, and the --input arrays by case input name
    (`x`, `x[0]`) as a device takes them."""

    device: Device
    op: Operator
    cases: list[Case]
    arrays: dict[str, np.ndarray] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def root(self) -> str:
        return str(self.op.project.root)

    @property
    def case(self) -> Case:
        """The first case: the one a run runs."""
        return self.cases[0]

    def tuner(
        self, options: TuneOptions, *, cache: ResultsCache | None = None, executor: Executor | None = None
    ) -> Tuner:
        """A tuner over this session's operator, device, cases and inputs; ValueError for an unknown strategy."""
        from tilewise.search.tuner import Tuner

        return Tuner(
            self.op,
            self.device,
            self.cases,
            strategy=options.strategy,
            budget=options.budget,
            seed=options.seed,
            cache=cache,
            workers=options.workers,
            inputs=self.arrays,
            executor=executor,
        )


def build_session(
    request: SessionRequest,
    *,
    op: Operator | None = None,
    device: Device | None = None,
    on_problems: Callable[[list[Problem]], None] | None = None,
) -> Session:
    """The session `request` describes. `op` is an operator the caller has loaded already (the editor's current
    analysis: not parsed again) and `device` one it has made (the server makes every device through its trust
    check); otherwise both are made here, the device first, as the command line always has.

    Raises TilewiseError (one line naming the file or flag and the fix) for an unknown device, an --input that is
    not a .npy, a case the manifest does not have, flags that do not fit the operator's inputs, or an editor request
    on an operator without cases."""
    device = device if device is not None else request.device.open()
    if op is None:
        op = load_operator(request.path, overlay=dict(request.overlay) if request.overlay is not None else None)
    if on_problems is not None:
        on_problems(list(op.problems))
    arrays = load_arrays(list(request.inputs))
    cases = select_cases(op, request, arrays)
    return Session(device, op, cases, input_arrays(arrays), list(op.problems))


def select_cases(op: Operator, request: SessionRequest, arrays: dict[TensorRef, np.ndarray] | None = None) -> list:
    """The cases `request` chooses (see SessionRequest); `arrays` are its loaded --input arrays."""
    arrays = arrays or {}
    names = list(request.cases)
    if request.manifest_purpose is not None:
        return manifest_cases(op, request.manifest_purpose, names[0] if names else None)
    flags = _case_flags(request, names[0] if names else None)
    if request.one_case:
        if len(names) > 1:
            raise TilewiseError("--case", 0, "give one --case: a run runs one case")
        return [build_case(op, flags, arrays)]
    if op.manifest and op.manifest.cases and not request.describes_a_case:
        return [op.manifest.case(name) for name in names] if names else list(op.manifest.cases)
    if len(names) > 1:
        raise TilewiseError(
            "--case",
            0,
            "give one --case with --shape/--dtype/--attr/--input (they describe "
            "one case), or drop those flags to use several cases",
        )
    return [build_case(op, flags, arrays)]


def manifest_cases(op: Operator, purpose: str, name: str | None = None) -> list:
    """The cases of the operator's tilewise.toml (only `name` when given), for an editor request that needs them; an
    error that says to add them (`purpose`: "to run or tune it") when there are none."""
    if op.manifest and op.manifest.cases:
        return [op.manifest.case(name)] if name else list(op.manifest.cases)
    raise ValueError(f"the operator has no tilewise.toml with shape cases; add one {purpose}")


def _case_flags(request: SessionRequest, case: str | None) -> SimpleNamespace:
    """What session/cases.build_case reads (the command line's flags for one case), from the request."""
    return SimpleNamespace(
        case=case,
        shape=list(request.shape) or None,
        dtype=list(request.dtype) or None,
        attr=list(request.attr) or None,
    )
