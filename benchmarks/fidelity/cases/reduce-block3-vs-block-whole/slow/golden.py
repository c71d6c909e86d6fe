"""Golden for the 256-float reduction of fidelity case A12: the sum (accumulated in float64, rounded once) in the
first of 8 float32 lanes, zeros after it."""

import numpy as np


def reduce256(x):
    out = np.zeros(8, dtype=np.float32)
    out[0] = np.float32(x.astype(np.float64).sum())
    return out
