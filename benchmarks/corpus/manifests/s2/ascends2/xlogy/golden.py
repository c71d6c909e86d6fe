import numpy as np


def xlogy(x1, x2):
    """torch.xlogy(x1, x2) = x1 * log(x2), and 0 where x1 == 0 (unless x2 is NaN). Computed in float64."""
    a = x1.astype(np.float64)
    b = x2.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = a * np.log(b)
    y = np.where((a == 0) & ~np.isnan(b), 0.0, y)
    return y.astype(x1.dtype)
