import numpy as np


def mod(x1, x2):
    """Mod as aclnnFmod: y = x1 - x2 * trunc(x1 / x2), the remainder with the sign of x1 (C fmod / torch.fmod),
    numpy broadcasting."""
    if x1.dtype.kind == "f":
        return np.fmod(x1.astype(np.float64), x2.astype(np.float64)).astype(x1.dtype)
    return np.fmod(x1.astype(np.int64), x2.astype(np.int64)).astype(x1.dtype)
