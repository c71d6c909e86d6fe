import numpy as np


def faster_gelu_forward(x, activation_type="ACTIVATION_FASTER_GELU_FORWARD"):
    """FastGelu (sigmoid approximation of GELU): y = x / (1 + exp(-1.702 x)) = x * sigmoid(1.702 x).
    Written in the overflow-free form x * e^{min(z,0)} / (1 + e^{-|z|}) with z = 1.702 x."""
    x64 = x.astype(np.float64)
    z = 1.702 * x64
    y = x64 * np.exp(np.minimum(z, 0.0)) / (1.0 + np.exp(-np.abs(z)))
    return y.astype(x.dtype)
