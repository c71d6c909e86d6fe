import numpy as np


def acos_grad(y_grad, x):
    """Backward of acos: d/dx acos(x) = -1 / sqrt(1 - x^2), so x_grad = -y_grad / sqrt(1 - x^2)."""
    x64 = x.astype(np.float64)
    return (-y_grad.astype(np.float64) / np.sqrt(1.0 - x64 * x64)).astype(x.dtype)
