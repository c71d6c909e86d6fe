import numpy as np


def softshrink(input_x, lambd=0.5):
    """torch.nn.functional.softshrink."""
    v = input_x.astype(np.float64)
    lam = float(lambd)
    out = np.where(v > lam, v - lam, np.where(v < -lam, v + lam, 0.0))
    return out.astype(input_x.dtype)
