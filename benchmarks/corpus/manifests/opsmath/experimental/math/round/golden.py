import numpy as np


def round(x, decimals=0):
    """torch.round(x, decimals=d): round to the nearest multiple of 10^-d, ties to even; int32 passes through."""
    if x.dtype.kind != "f":
        return x.copy()
    return np.round(x.astype(np.float64), int(decimals)).astype(x.dtype)
