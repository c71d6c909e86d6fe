import numpy as np


def sigmoid(x):
    """1 / (1 + exp(-x))."""
    v = x.astype(np.float64)
    return (1.0 / (1.0 + np.exp(-v))).astype(x.dtype)
