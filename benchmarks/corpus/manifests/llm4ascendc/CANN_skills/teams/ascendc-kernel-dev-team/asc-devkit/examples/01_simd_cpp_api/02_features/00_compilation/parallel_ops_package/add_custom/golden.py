import numpy as np


def add_custom(x, y):
    """z = x + y (float16), elementwise."""
    return (x.astype(np.float32) + y.astype(np.float32)).astype(np.float16)
