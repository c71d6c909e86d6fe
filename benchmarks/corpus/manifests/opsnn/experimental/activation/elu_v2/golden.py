import numpy as np


def elu_v2(x, alpha=1.0, scale=1.0, inputScale=1.0):
    """ELU with an output scale and an input scale (as aclnnElu)."""
    v = x.astype(np.float64)
    neg = float(scale) * float(alpha) * np.expm1(float(inputScale) * v)
    return np.where(v > 0.0, float(scale) * v, neg).astype(x.dtype)
