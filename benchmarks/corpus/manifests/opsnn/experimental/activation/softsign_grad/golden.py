import numpy as np


def softsign_grad(gradients, features):
    """The gradient of x / (1 + |x|) times the upstream gradient."""
    d = 1.0 + np.abs(features.astype(np.float64))
    return (gradients.astype(np.float64) / (d * d)).astype(gradients.dtype)
