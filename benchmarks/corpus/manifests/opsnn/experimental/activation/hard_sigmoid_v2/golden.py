import numpy as np


def hard_sigmoid_v2(x):
    """clip(x / 6 + 0.5, 0, 1)."""
    v = x.astype(np.float64)
    return np.clip(v / 6.0 + 0.5, 0.0, 1.0).astype(x.dtype)
