"""The one table of tensor element types: the name manifests and the model use, its size, its ge::DataType
enumerator and code (an OpDef's `DataType({ge::DT_FLOAT})`, the runner's spec), the kernel-side C++ type and the
numpy type the emulator's files hold.

Everything else derives from it: `DTYPE_SIZES` (analysis/evaluate.py), the manifest's dtype list, the OpDef reader's
`GE_DTYPES`, and the devices' table with real numpy types (device/dtypes.py; device imports analysis,
never the reverse, so this module names numpy types by string).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DType:
    name: str  # as manifests and the model spell it
    ge: str  # ge::DataType enumerator
    size: int | None = None  # bytes per element; None: the analysis sizes nothing of this type
    ge_code: int | None = None  # ge::DataType value, for the types the emulator runs
    cpp: str | None = None  # kernel-side C++ type; None: the emulator cannot run this type
    numpy: str | None = None  # numpy dtype of its data files (bfloat16 travels as its uint16 bit patterns)


# The manifest lists the types the emulator runs in this order (in its error message); the rest are types an OpDef
# may name that the emulator has no kernel type for: the model carries them, nothing is sized or run.
DTYPES: tuple[DType, ...] = (
    DType("float16", "DT_FLOAT16", 2, 1, "half", "float16"),
    DType("float32", "DT_FLOAT", 4, 0, "float", "float32"),
    DType("bfloat16", "DT_BF16", 2, 27, "bfloat16_t", "uint16"),
    DType("float64", "DT_DOUBLE", 8, 11, "double", "float64"),
    DType("int8", "DT_INT8", 1, 2, "int8_t", "int8"),
    DType("uint8", "DT_UINT8", 1, 4, "uint8_t", "uint8"),
    DType("int16", "DT_INT16", 2, 6, "int16_t", "int16"),
    DType("uint16", "DT_UINT16", 2, 7, "uint16_t", "uint16"),
    DType("int32", "DT_INT32", 4, 3, "int32_t", "int32"),
    DType("uint32", "DT_UINT32", 4, 8, "uint32_t", "uint32"),
    DType("int64", "DT_INT64", 8, 9, "int64_t", "int64"),
    DType("uint64", "DT_UINT64", 8, 10, "uint64_t", "uint64"),
    DType("bool", "DT_BOOL", 1, 12, "bool", "bool"),
    DType("complex64", "DT_COMPLEX64"),
    DType("int4", "DT_INT4"),
    DType("hifloat8", "DT_HIFLOAT8"),
    DType("float8_e4m3", "DT_FLOAT8_E4M3FN"),
    DType("float8_e5m2", "DT_FLOAT8_E5M2"),
)
BY_NAME = {d.name: d for d in DTYPES}

# Element sizes by name. "float" is the C++ spelling of float32, which some dtype lists use.
DTYPE_SIZES: dict[str, int] = {d.name: d.size for d in DTYPES if d.size is not None} | {"float": 4}

# The types a manifest may give a tensor: those the emulator runs.
RUNNABLE: tuple[str, ...] = tuple(d.name for d in DTYPES if d.cpp is not None)

# ge::DataType enumerator -> name, for reading an OpDef's DataType lists.
GE_DTYPES: dict[str, str] = {d.ge: d.name for d in DTYPES}

# ge::DataType names the analysis does not model (sub-byte, quantised, string and 4/6-bit float types, the CANN
# Graph API's DataType list): valid in an OpDef, so no "unknown dtype" problem; the model carries the lower-case name.
GE_DTYPES_UNMODELLED = frozenset(
    {
        "DT_STRING",
        "DT_DUAL_SUB_INT8",
        "DT_DUAL_SUB_UINT8",
        "DT_COMPLEX128",
        "DT_QINT8",
        "DT_QINT16",
        "DT_QINT32",
        "DT_QUINT8",
        "DT_QUINT16",
        "DT_RESOURCE",
        "DT_STRING_REF",
        "DT_DUAL",
        "DT_VARIANT",
        "DT_UNDEFINED",
        "DT_UINT1",
        "DT_INT2",
        "DT_UINT2",
        "DT_COMPLEX32",
        "DT_FLOAT8_E8M0",
        "DT_FLOAT6_E3M2",
        "DT_FLOAT6_E2M3",
        "DT_FLOAT4_E2M1",
        "DT_FLOAT4_E1M2",
    }
)
