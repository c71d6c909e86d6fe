import numpy as np


def swish(x, scale=1.0):
    """x * sigmoid(scale * x) = x / (1 + exp(-scale * x))."""
    v = x.astype(np.float64)
    return (v / (1.0 + np.exp(-float(scale) * v))).astype(x.dtype)
