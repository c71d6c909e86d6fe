import numpy as np


def hard_shrink_grad(grad_output, self, lambd=0.5):
    """The gradient of hardshrink: passed where |x| > lambd."""
    keep = np.abs(self.astype(np.float64)) > float(lambd)
    return np.where(keep, grad_output.astype(np.float64), 0.0).astype(grad_output.dtype)
