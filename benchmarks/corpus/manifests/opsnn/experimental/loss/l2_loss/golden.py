import numpy as np


def l2_loss(x):
    """Half the sum of squares, as one value of x's dtype."""
    v = x.astype(np.float64)
    return np.array([0.5 * np.sum(v * v)]).astype(x.dtype)
