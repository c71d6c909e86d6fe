import numpy as np


def silu_mul(x, y):
    """x * sigmoid(x) * y."""
    v = x.astype(np.float64)
    return (v / (1.0 + np.exp(-v)) * y.astype(np.float64)).astype(x.dtype)
