import numpy as np


def add_custom_template(x, y):
    """z = x + y, elementwise."""
    return (x.astype(np.float64) + y.astype(np.float64)).astype(x.dtype)
