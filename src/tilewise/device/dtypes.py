"""The devices' view of the dtype table (analysis/dtypes.py): each runnable dtype with its numpy type, C++ type
and ge::DataType code, and the bfloat16 bit conversions (the emulator, the NPU device's harness and the golden
check all read it).

numpy has no bfloat16: bfloat16 tensors travel as their uint16 bit patterns and are widened to float32 for the
golden and the comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tilewise.analysis.dtypes import DTYPES as TABLE


@dataclass(frozen=True)
class DType:
    name: str
    numpy: type[np.generic]
    cpp: str
    ge: int  # ge::DataType code the host headers use


# Derived from the analysis's table (names, C++ types, ge codes, numpy names), with numpy's types for the files.
DTYPES = {
    d.name: DType(d.name, np.dtype(d.numpy).type, d.cpp, d.ge_code)
    for d in TABLE
    if d.cpp is not None and d.numpy is not None and d.ge_code is not None
}
BY_GE = {d.ge: d for d in DTYPES.values()}


def to_bf16_bits(values: np.ndarray) -> np.ndarray:
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even
    return rounded.astype(np.uint16)


def from_bf16_bits(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def as_float(array: np.ndarray, dtype: str) -> np.ndarray:
    """Widen for comparison (bfloat16 bit patterns become their float32 values)."""
    if dtype == "bfloat16":
        return from_bf16_bits(array).astype(np.float64)
    return np.asarray(array).astype(np.float64)
