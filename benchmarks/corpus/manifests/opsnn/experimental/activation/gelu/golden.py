import numpy as np


def gelu(x):
    """Gelu, tanh approximation written as x * sigmoid(2 * sqrt(2 / pi) * (x + 0.044715 x^3))."""
    v = x.astype(np.float64)
    return (v / (1.0 + np.exp(-1.595769122 * (v + 0.0455399241 * v**3)))).astype(x.dtype)
