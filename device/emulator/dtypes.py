"""One table for the dtype names used by manifests, numpy, C++ and ge::DataType codes.

numpy has no bfloat16: bfloat16 tensors travel as their uint16 bit patterns and are widened to float32 for the
golden and the comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DType:
    name: str
    numpy: type
    cpp: str
    ge: int  # ge::DataType code the host headers use


DTYPES = {
    d.name: d
    for d in (
        DType("float32", np.float32, "float", 0),
        DType("float16", np.float16, "half", 1),
        DType("int8", np.int8, "int8_t", 2),
        DType("int32", np.int32, "int32_t", 3),
        DType("uint8", np.uint8, "uint8_t", 4),
        DType("int16", np.int16, "int16_t", 6),
        DType("uint16", np.uint16, "uint16_t", 7),
        DType("uint32", np.uint32, "uint32_t", 8),
        DType("int64", np.int64, "int64_t", 9),
        DType("uint64", np.uint64, "uint64_t", 10),
        DType("float64", np.float64, "double", 11),
        DType("bool", np.bool_, "bool", 12),
        DType("bfloat16", np.uint16, "bfloat16_t", 27),
    )
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
