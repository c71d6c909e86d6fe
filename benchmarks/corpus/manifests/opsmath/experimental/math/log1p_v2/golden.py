import numpy as np


def log1p_v2(x1):
    """y = log(1 + x1), as torch.log1p (defined for x1 > -1)."""
    return np.log1p(x1.astype(np.float64)).astype(x1.dtype)
