import numpy as np


def squared_relu(x):
    """relu(x) squared."""
    r = np.maximum(x.astype(np.float64), 0.0)
    return (r * r).astype(x.dtype)
