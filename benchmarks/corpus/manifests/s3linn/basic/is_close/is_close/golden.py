import numpy as np


def is_close(x1, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch.isclose(x1, x2, rtol, atol, equal_nan): |x1 - x2| <= atol + rtol * |x2|, broadcasting; equal
    infinities are close, NaN is close to NaN only with equal_nan."""
    a = x1.astype(np.float64)
    b = x2.astype(np.float64)
    with np.errstate(invalid="ignore"):
        close = np.abs(a - b) <= atol + rtol * np.abs(b)
    close = close | (a == b)
    if equal_nan:
        close = close | (np.isnan(a) & np.isnan(b))
    return np.broadcast_to(close, np.broadcast_shapes(a.shape, b.shape)).astype(bool)
