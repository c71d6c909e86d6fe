import numpy as np


def relu(x):
    """max(x, 0), elementwise, in x's own dtype (exact for every dtype)."""
    return np.maximum(x, np.zeros((), dtype=x.dtype))
