import numpy as np


def add_custom(x, y):
    """z = x + y, float32, elementwise."""
    return (x.astype(np.float64) + y.astype(np.float64)).astype(np.float32)
