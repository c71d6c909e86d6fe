import numpy as np


def hardtanh_grad(result, grad, min_val=-1.0, max_val=1.0):
    """grad passed where result lies within [min_val, max_val], zero outside."""
    r = result.astype(np.float64)
    inside = (r >= float(min_val)) & (r <= float(max_val))
    return np.where(inside, grad.astype(np.float64), 0.0).astype(grad.dtype)
