"""RowSum golden: the sum over the last axis in float32 (accumulated in float64 and rounded once)."""
import numpy as np


def row_sum(x):
    return x.astype(np.float64).sum(axis=-1).astype(np.float32)
