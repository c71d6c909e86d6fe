"""Where a tune's measurements run: on this machine (`local`) or as tasks on a Ray cluster (`ray`).

The tuner (search/tuner.py) keeps everything that decides the search in its own process: the strategy, the
screenings, the results cache and the events. What an executor takes off its hands is the one expensive call, the
measurement of one configuration on one case (`Device.run` of a `RunRequest`). `LocalExecutor` makes that call in
the tuner's own threads, as a tune always has. `RayExecutor` sends it to a Ray cluster as a task and waits for the
answer, so the cache is written by the tuner's process alone (no SQLite over the network) and a result is kept the
moment it arrives: a worker that dies afterwards loses nothing finished. Because proposals are still asked and told
in their order, the same seed with the same `workers` searches the same way whichever executor measures.

A Ray task rebuilds what it needs on the worker: the operator from its root folder and the tuner's source texts
(`load_operator(root, overlay=texts)`: the folder must be at the same path on every node, for the manifest and the
golden; the sources themselves travel with the task, put in the object store once per version), the run itself
from the `RunRequest` the task is given as one argument (the case, knobs, seed, inputs, ...), and the device from its
name, chip, timeout and, for an NPU, toolkit, warm-up and launch count (`device.registry.make_device`). Every node
needs tilewise installed and what the device needs: g++ for the emulator; for an NPU, CANN at the `--cann` path or
sourced in the shell that ran the node's `ray start`. TILEWISE_OPT, TILEWISE_CXX, TILEWISE_CACHE and the emulator's
build folders (TILEWISE_BUILD_CACHE, TILEWISE_PREBUILT), when set here, are set for the tasks too: a task on this
machine then takes the builds the driver already made instead of compiling them again in a cache of its own.

An emulator task asks for one CPU; a task for an NPU device (a device name starting with "npu") asks for one `NPU`,
Ray's resource name for Ascend cards. Ray then sets ASCEND_RT_VISIBLE_DEVICES for the worker, which `msprof op` is
documented not to support, so the task reads the card Ray gave it (`get_accelerator_ids()["NPU"]`), removes the
variable from the worker's environment (no child the task starts inherits it) and measures on `npu:<that card>`.
Ray picks the cards, so the device is named `npu`, never `npu:ID`.

Ray is imported only when a RayExecutor is made; without it, the one line is RAY_MISSING.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tilewise.analysis.chip import Chip
from tilewise.analysis.operator import Operator, load_operator
from tilewise.device.protocol import Device, Measurement, RunRequest
from tilewise.search.cache import source_hash

EXECUTORS: tuple[str, ...] = ("local", "ray")
RAY_MISSING = "--executor ray needs Ray: pip install 'ray>=2.10'"
# Environment variables that change how a device builds or where it caches: the tasks see the driver's values.
FORWARDED_ENV = ("TILEWISE_OPT", "TILEWISE_CXX", "TILEWISE_CACHE", "TILEWISE_BUILD_CACHE", "TILEWISE_PREBUILT")
# Ray's name for Ascend cards, and the variable it sets for a worker given some (ray/_private/accelerators/npu.py).
NPU_RESOURCE = "NPU"
VISIBLE_DEVICES = "ASCEND_RT_VISIBLE_DEVICES"
# How often Ray runs a measurement again when the worker or the node running it dies.
DEFAULT_MAX_RETRIES = 3

log = logging.getLogger(__name__)


class ExecutorError(Exception):
    """An executor cannot be set up (Ray missing, a cluster that cannot be reached or lacks the resource) or lost a
    measurement; the message is one line."""


class Executor(Protocol):
    """Where `Device.run` happens for the tuner. `name` is what a tune's result reports; `close` lets go of what
    the executor holds (a Ray connection, the local Ray it started)."""

    name: str

    def run(self, op: Operator, request: RunRequest) -> Measurement: ...

    def close(self) -> None: ...


class LocalExecutor:
    """The device's own `run`, in the caller's thread (the tuner's pool): what a tune has always done."""

    name = "local"

    def __init__(self, device: Device):
        self.device = device

    def run(self, op: Operator, request: RunRequest) -> Measurement:
        return self.device.run(op, request)

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class DeviceSpec:
    """What a worker needs to make the same device (`device.registry.make_device`): its name, the chip as the user
    gave it (None: the device's default, which for the emulator may follow the chip the operator's OpDef
    registers), the run timeout, and an NPU's toolkit, warm-up and launch count (None: the registry's defaults)."""

    name: str
    chip: Chip | None = None
    timeout_s: float | None = None
    cann: str | None = None
    warm_up: int | None = None
    launches: int | None = None

    def make(self, card: int | None = None) -> Device:
        """The device on this machine; an NPU device on `card` when given (the one Ray handed the task)."""
        from tilewise.device.registry import make_device

        given: dict[str, Any] = {"cann": self.cann, "warm_up": self.warm_up, "launches": self.launches}
        name = f"npu:{card}" if card is not None else self.name
        return make_device(
            name, chip=self.chip, timeout_s=self.timeout_s, **{k: v for k, v in given.items() if v is not None}
        )

    def key(self, card: int | None) -> str:
        return repr(
            (
                self.name,
                card,
                self.chip.model_dump_json() if self.chip else "",
                self.timeout_s,
                self.cann,
                self.warm_up,
                self.launches,
            )
        )


def task_options(spec: DeviceSpec, max_retries: int = DEFAULT_MAX_RETRIES) -> dict[str, Any]:
    """The Ray task options for a measurement on `spec`'s device: one NPU card for an NPU device, one CPU for the
    emulator; retried when the worker or its node dies (never when the task itself raised)."""
    wants: dict[str, Any] = {"resources": {NPU_RESOURCE: 1}} if _is_npu(spec.name) else {"num_cpus": 1}
    return {**wants, "max_retries": max_retries, "retry_exceptions": False}


def _is_npu(device_name: str) -> bool:
    return device_name.startswith("npu")


def _import_ray() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ExecutorError(RAY_MISSING) from None


def forwarded_env(environ: Mapping[str, str]) -> dict[str, str]:
    """What of the driver's environment every task is given: the FORWARDED_ENV variables that are set."""
    return {k: environ[k] for k in FORWARDED_ENV if environ.get(k)}


class RayExecutor:
    """Measurements as Ray tasks. With `address` (`HOST:PORT` of a cluster's head, or `auto` for the one `ray start`
    began on this machine) it connects to that cluster; without, it starts a local Ray over this machine's CPUs,
    and stops it on `close`. A Ray already initialised in this process is used as it is (and left running)."""

    name = "ray"

    def __init__(self, spec: DeviceSpec, *, address: str | None = None, max_retries: int = DEFAULT_MAX_RETRIES):
        if _is_npu(spec.name) and spec.name != "npu":
            raise ExecutorError(f"with --executor ray, Ray picks each task's card: use --device npu, not {spec.name}")
        self.ray = _import_ray()
        self.spec = spec
        self.address = address
        self._sources: dict[tuple[str, str], Any] = {}  # (root, sources' hash) -> the object ref of the payload
        self._env = forwarded_env(os.environ)
        self._owns = not self.ray.is_initialized()
        if self._owns:
            self._connect(address)
        self._check_resources()
        self._task = self.ray.remote(measure_task).options(**task_options(spec, max_retries))

    def _connect(self, address: str | None) -> None:
        where = address or "a local Ray"
        try:
            if address:
                self.ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
            else:  # our own instance: no usage report, no dashboard, this machine's CPUs
                os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
                self.ray.init(
                    address="local",
                    num_cpus=os.cpu_count() or 1,
                    include_dashboard=False,
                    log_to_driver=False,
                    logging_level=logging.WARNING,
                )
        except Exception as exc:  # noqa: BLE001 - Ray raises ConnectionError, RuntimeError, ValueError...: one line
            hint = (
                " (is it up, and if it uses token authentication, is RAY_AUTH_MODE=token set here too?)"
                if address
                else ""
            )
            raise ExecutorError(f"cannot start or reach {where}: {_first_line(exc)}{hint}") from None

    def _check_resources(self) -> None:
        """Refuse a cluster where no task could ever be scheduled, instead of waiting for one forever."""
        resources = self.ray.cluster_resources()
        need = NPU_RESOURCE if _is_npu(self.spec.name) else "CPU"
        if resources.get(need, 0) < 1:
            self.close()
            hint = f" (start its nodes with --resources='{{\"{NPU_RESOURCE}\": N}}')" if need == NPU_RESOURCE else ""
            raise ExecutorError(
                f"the Ray cluster at {self.address or 'this machine'} has no {need} for the "
                f"{self.spec.name} device{hint}"
            )

    def slots(self) -> tuple[int, str]:
        """How many measurements the cluster can run at once, and of what: its CPUs, or its NPU cards."""
        need = NPU_RESOURCE if _is_npu(self.spec.name) else "CPU"
        return int(self.ray.cluster_resources().get(need, 0)), need

    def run(self, op: Operator, request: RunRequest) -> Measurement:
        ref = self._task.remote(self._payload(op), request, self.spec, self._env)
        ex = self.ray.exceptions
        try:
            data, arrays = self.ray.get(ref)
        except ex.RayTaskError as exc:  # the task's own code raised (an operator the worker cannot load, say)
            cause = getattr(exc, "cause", None) or exc
            hint = " (install tilewise on every node)" if isinstance(cause, ModuleNotFoundError) else ""
            raise ExecutorError(f"on the Ray worker: {type(cause).__name__}: {_first_line(cause)}{hint}") from None
        except ex.RayError as exc:  # the worker or its node died more often than Ray retries
            raise ExecutorError(f"the Ray task was lost: {type(exc).__name__}: {_first_line(exc)}") from None
        m = Measurement.model_validate(data)
        if arrays is not None:
            m.keep_outputs(arrays)
        return m

    def _payload(self, op: Operator) -> Any:
        """The operator's root and source texts, put in the object store once per version of the sources."""
        texts = {path: sf.text for path, sf in op.sources.items()}
        key = (str(op.project.root), source_hash(texts))
        ref = self._sources.get(key)
        if ref is None:
            if len(self._sources) >= 8:  # a long-lived executor over many edits keeps the recent ones
                self._sources.clear()
            ref = self._sources[key] = self.ray.put((key[0], texts))
        return ref

    def close(self) -> None:
        self._sources.clear()
        if self._owns and self.ray.is_initialized():
            self.ray.shutdown()
        self._owns = False


def make_executor(name: str, device: Device, spec: DeviceSpec | None = None, *, address: str | None = None) -> Executor:
    """The executor called `name` for `device`; `spec` says how a remote worker makes the same device (by default
    the device's name and chip and the default timeout). ExecutorError (one line) for an unknown name, a missing
    Ray or a cluster that cannot be used."""
    if name == "local":
        return LocalExecutor(device)
    if name == "ray":
        return RayExecutor(spec or DeviceSpec(device.name, device.chip), address=address)
    raise ExecutorError(f"unknown executor '{name}'; use one of: {', '.join(EXECUTORS)}")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# ---- on the worker ------------------------------------------------------------------------------------------------
# A worker process runs one task at a time and is reused across a tune's tasks: the operator (parsed once per
# version of its sources) and the device (its build cache) are kept between them.
_operators: dict[tuple[str, str], Operator] = {}
_devices: dict[str, Device] = {}


def measure_task(
    payload: tuple[str, dict[str, str]], request: RunRequest, spec: DeviceSpec, env: dict[str, str]
) -> tuple[dict[str, Any], list[np.ndarray] | None]:
    """One measurement on a Ray worker: the operator from its payload (resolved by Ray from the object store), the
    run as the tuner asked for it, on `spec`'s device with the driver's `env`; returns the measurement's dump, and
    the produced arrays when the request asked to keep them."""
    os.environ.update(env)
    card = npu_card() if _is_npu(spec.name) else None
    root, texts = payload
    key = (root, source_hash(texts))
    op = _operators.get(key)
    if op is None:
        if len(_operators) >= 8:
            _operators.clear()
        op = _operators[key] = load_operator(root, overlay=texts)
    device = _devices.get(spec.key(card))
    if device is None:
        device = _devices[spec.key(card)] = spec.make(card)
    m = device.run(op, request)
    return m.model_dump(), m.produced_outputs() if request.keep_outputs else None


def npu_card() -> int | None:
    """The NPU card Ray gave this task (its first, by physical id), with ASCEND_RT_VISIBLE_DEVICES removed from the
    worker's environment so that nothing the task starts (msprof op above all) runs with it set. None outside Ray
    or when Ray gave no card."""
    ray = _import_ray()
    ids = ray.get_runtime_context().get_accelerator_ids().get(NPU_RESOURCE) or []
    os.environ.pop(VISIBLE_DEVICES, None)
    return int(ids[0]) if ids else None
