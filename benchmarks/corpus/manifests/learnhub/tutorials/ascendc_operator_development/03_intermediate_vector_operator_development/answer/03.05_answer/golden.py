import numpy as np


def add_custom_template(x, y, max=0.0, min=0.0):
    """clip(x + y, min, max): first capped at max, then raised to min."""
    s = x.astype(np.float64) + y.astype(np.float64)
    out = np.maximum(np.minimum(s, float(max)), float(min))
    return out.astype(x.dtype)
