import numpy as np


def asinh(x):
    """torch.asinh: log(x + sqrt(x^2 + 1)), in float64."""
    return np.arcsinh(x.astype(np.float64)).astype(x.dtype)
