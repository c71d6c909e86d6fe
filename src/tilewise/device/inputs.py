"""Seeded random inputs for a case, honouring each input's init hint, or user-supplied arrays (.npy); and the
case's fixed data files (a kernel-invocation program's tiling.bin), written where the program reads them. Every
device draws its inputs here, so one seed gives the same arrays on the emulator and on an NPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tilewise.analysis.manifest import Case, InputSpec
from tilewise.device.dtypes import DTYPES, to_bf16_bits


def make_inputs(case: Case, seed: int, overrides: dict[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    out: dict[str, np.ndarray] = {}
    for name, spec in case.inputs.items():
        values = overrides[name] if overrides and name in overrides else _random(rng, spec)
        try:
            out[name] = _as_dtype(np.asarray(values), spec)
        except ValueError as exc:
            raise ValueError(f"input {name}: {exc}") from None
    return out


def _random(rng: np.random.Generator, spec: InputSpec) -> np.ndarray:
    shape = tuple(spec.shape)
    low = spec.low
    high = spec.high
    if spec.dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if spec.init == "zeros":
        return np.zeros(shape)
    if spec.init == "ones":
        return np.ones(shape)
    if spec.init == "randint" or spec.dtype.startswith(("int", "uint")):
        lo = int(low if low is not None else (-100 if not spec.dtype.startswith("uint") else 0))
        hi = int(high if high is not None else 100)
        return rng.integers(lo, hi, shape)
    if spec.init == "uniform":
        return rng.uniform(low if low is not None else 0.0, high if high is not None else 1.0, shape)
    if spec.init == "positive":
        return rng.uniform(low if low is not None else 0.1, high if high is not None else 2.0, shape)
    values = rng.standard_normal(shape)
    if low is not None or high is not None:
        values = np.clip(values, low, high)
    return values


def _as_dtype(values: np.ndarray, spec: InputSpec) -> np.ndarray:
    if values.size != int(np.prod(spec.shape)):
        raise ValueError(
            f"an array of shape {list(values.shape)} ({values.size} elements) cannot be an input of shape "
            f"{list(spec.shape)}"
        )
    if spec.dtype == "bfloat16":
        return to_bf16_bits(values.astype(np.float32)).reshape(spec.shape)
    return values.astype(DTYPES[spec.dtype].numpy).reshape(spec.shape)


def write_case_files(case: Case, workdir: Path) -> list[Path]:
    """The case's `files` under workdir: each entry's values as its dtype, little-endian and packed, entries naming
    one path following each other in it (a tiling struct's fields). Returns the files written."""
    chunks: dict[str, list[bytes]] = {}
    for spec in case.files:
        if spec.dtype == "bfloat16":
            data = to_bf16_bits(np.asarray(spec.values, dtype=np.float32))
        else:
            data = np.asarray(spec.values).astype(np.dtype(DTYPES[spec.dtype].numpy).newbyteorder("<"))
        chunks.setdefault(spec.path, []).append(data.tobytes())
    written = []
    for rel, parts in chunks.items():
        path = workdir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"".join(parts))
        written.append(path)
    return written
