import numpy as np


def huber_loss(predictions, targets, delta=1.0):
    """The elementwise Huber loss."""
    e = np.abs(predictions.astype(np.float64) - targets.astype(np.float64))
    d = float(delta)
    return np.where(e <= d, 0.5 * e * e, d * (e - 0.5 * d)).astype(predictions.dtype)
