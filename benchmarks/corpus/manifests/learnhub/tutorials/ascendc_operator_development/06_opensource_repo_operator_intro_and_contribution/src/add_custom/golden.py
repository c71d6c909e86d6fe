import numpy as np


def add_custom(x1, x2):
    """y = x1 + x2, elementwise; int32 wraps like the hardware adder."""
    if x1.dtype.kind == "f":
        return (x1.astype(np.float64) + x2.astype(np.float64)).astype(x1.dtype)
    return (x1.astype(np.int64) + x2.astype(np.int64)).astype(x1.dtype)
