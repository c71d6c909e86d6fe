import numpy as np


def vector_add(a, b):
    """C = A + B, float32, elementwise."""
    return (a.astype(np.float64) + b.astype(np.float64)).astype(np.float32)
