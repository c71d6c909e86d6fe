"""The one dtype table (analysis/dtypes.py) and what derives from it: the sizes, the manifest's list, the OpDef
reader's ge::DataType names and the emulator's numpy types must say the same thing about each dtype."""

from __future__ import annotations

import numpy as np

from tilewise.analysis import dtypes
from tilewise.analysis.dtypes import DTYPE_SIZES, GE_DTYPES
from tilewise.analysis.evaluate import TYPE_SIZES
from tilewise.analysis.extract.opdef import GE_DTYPES as OPDEF_GE_DTYPES
from tilewise.analysis.extract.opdef import GE_DTYPES_UNMODELLED as OPDEF_GE_DTYPES_UNMODELLED
from tilewise.analysis.manifest import DTYPES as MANIFEST_DTYPES
from tilewise.device.dtypes import BY_GE, DTYPES


def test_every_runnable_dtype_has_one_size_in_every_spelling():
    for d in dtypes.DTYPES:
        if d.cpp is None:
            continue
        assert np.dtype(d.numpy).itemsize == d.size == TYPE_SIZES[d.cpp] == DTYPE_SIZES[d.name], d.name
        assert DTYPES[d.name].ge == d.ge_code and DTYPES[d.name].cpp == d.cpp
    assert DTYPES["bfloat16"].numpy is np.uint16  # numpy has no bfloat16: its files hold the bit patterns
    assert len(BY_GE) == len(DTYPES)  # ge codes are unique


def test_the_other_tables_derive_from_it():
    assert MANIFEST_DTYPES == tuple(DTYPES) == dtypes.RUNNABLE
    # the OpDef reader reads ge::DataType names with this table
    assert OPDEF_GE_DTYPES is GE_DTYPES and OPDEF_GE_DTYPES_UNMODELLED is dtypes.GE_DTYPES_UNMODELLED
    assert GE_DTYPES["DT_FLOAT"] == "float32" and GE_DTYPES["DT_BF16"] == "bfloat16"
    assert not set(dtypes.GE_DTYPES) & dtypes.GE_DTYPES_UNMODELLED
    # types an OpDef may name but nothing runs or sizes
    assert "complex64" not in DTYPE_SIZES and "complex64" not in DTYPES
