import numpy as np


def softplus(x):
    """log(1 + exp(x)), computed without overflow as logaddexp(0, x)."""
    return np.logaddexp(0.0, x.astype(np.float64)).astype(x.dtype)
