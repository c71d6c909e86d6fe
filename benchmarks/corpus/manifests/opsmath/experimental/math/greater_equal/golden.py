import numpy as np


def greater_equal(x1, x2):
    """y = x1 >= x2 with numpy broadcasting, a bool tensor, as torch.ge."""
    if x1.dtype.kind == "f" or x2.dtype.kind == "f":
        return np.greater_equal(x1.astype(np.float64), x2.astype(np.float64))
    if x1.dtype.kind == "b":
        return np.greater_equal(x1, x2)
    return np.greater_equal(x1.astype(np.int64), x2.astype(np.int64))
