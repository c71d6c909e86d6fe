import numpy as np



def sqrt(x):
    """The square root of each element."""
    return np.sqrt(x.astype(np.float64)).astype(x.dtype)
