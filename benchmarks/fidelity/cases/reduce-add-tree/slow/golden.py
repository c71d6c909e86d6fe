"""Golden for the row reduction of fidelity case A13: the sum of the 30000 floats, accumulated in float64 and
rounded once (the kernel's tree order differs; the manifest tolerance covers it)."""

import numpy as np


def reduce_row(x):
    return np.array([x.astype(np.float64).sum()], dtype=np.float32)
