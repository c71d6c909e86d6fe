import numpy as np


def swi_glu(x, dim=-1):
    """a * sigmoid(a) * b for the two halves a, b of x along dim."""
    a, b = np.split(x.astype(np.float64), 2, axis=int(dim))
    return (a / (1.0 + np.exp(-a)) * b).astype(x.dtype)
