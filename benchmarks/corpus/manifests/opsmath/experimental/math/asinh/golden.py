import numpy as np


def asinh(x):
    """y = asinh(x) = sign(x) * ln(|x| + sqrt(x^2 + 1)), as torch.asinh."""
    return np.arcsinh(x.astype(np.float64)).astype(x.dtype)
