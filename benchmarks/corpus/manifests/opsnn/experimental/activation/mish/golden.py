import numpy as np


def mish(x):
    """Mish: x * tanh(log1p(exp(x))), computed stably as x * tanh(logaddexp(0, x))."""
    v = x.astype(np.float64)
    return (v * np.tanh(np.logaddexp(0.0, v))).astype(x.dtype)
