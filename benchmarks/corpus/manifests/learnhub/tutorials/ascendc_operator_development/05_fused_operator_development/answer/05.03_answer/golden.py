import numpy as np


def square_diff(x, y):
    """(x + y) * (x - y), elementwise."""
    a = x.astype(np.float64)
    b = y.astype(np.float64)
    return ((a + b) * (a - b)).astype(x.dtype)
