import numpy as np


def silu_grad(dy, x):
    """The derivative of x * sigmoid(x), times dy."""
    v = x.astype(np.float64)
    s = 1.0 / (1.0 + np.exp(-v))
    return (dy.astype(np.float64) * s * (1.0 + v * (1.0 - s))).astype(dy.dtype)
