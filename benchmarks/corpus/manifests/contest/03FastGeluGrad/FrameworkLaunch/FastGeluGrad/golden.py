"""FastGeluGrad (CANN FastGeluGrad): the derivative of x * sigmoid(1.702 x) times dy:
z = dy * (s + 1.702 * x * s * (1 - s)), s = sigmoid(1.702 x)."""

import numpy as np


def fast_gelu_grad(dy, x):
    xf = x.astype(np.float64)
    s = 1.0 / (1.0 + np.exp(-1.702 * xf))
    return (dy.astype(np.float64) * (s + 1.702 * xf * s * (1.0 - s))).astype(x.dtype)
