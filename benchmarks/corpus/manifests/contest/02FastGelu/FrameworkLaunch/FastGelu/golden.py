"""FastGelu (CANN FastGelu): y = x / (1 + exp(-1.702 * x)), i.e. x * sigmoid(1.702 * x)."""

import numpy as np


def fast_gelu(x):
    xf = x.astype(np.float64)
    return (xf / (1.0 + np.exp(-1.702 * xf))).astype(x.dtype)
