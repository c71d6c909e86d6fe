import numpy as np


def softsign(x):
    """x / (1 + |x|)."""
    v = x.astype(np.float64)
    return (v / (1.0 + np.abs(v))).astype(x.dtype)
