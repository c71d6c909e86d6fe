import numpy as np


def leakyrelu_v2(x, negativeSlope=1.0):
    """Leaky ReLU with the attribute's slope (the tiling's fallback when the attribute is absent is 1)."""
    v = x.astype(np.float64)
    return np.where(v >= 0.0, v, float(negativeSlope) * v).astype(x.dtype)
