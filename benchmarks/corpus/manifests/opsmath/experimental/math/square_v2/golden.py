import numpy as np


def square_v2(x):
    """z = x * x, as torch.square."""
    return np.square(x.astype(np.float64)).astype(x.dtype)
