import numpy as np


def mse_loss(predict, label, reduction="mean"):
    """torch.nn.functional.mse_loss."""
    d = predict.astype(np.float64) - label.astype(np.float64)
    return _reduce(d * d, reduction, predict.dtype)


def _reduce(loss, reduction, dtype):
    """none: the elementwise loss; mean and sum: one value (a 0-d array, the scalar the InferShape gives)."""
    if reduction in ("mean", 1):
        return np.array(loss.mean()).astype(dtype)
    if reduction in ("sum", 2):
        return np.array(loss.sum()).astype(dtype)
    return loss.astype(dtype)
