import numpy as np


def hinge_loss(predict, target):
    """The elementwise hinge loss."""
    m = 1.0 - target.astype(np.float64) * predict.astype(np.float64)
    return np.maximum(m, 0.0).astype(predict.dtype)
