import numpy as np


def smooth_l1_loss_v2(predict, label, sigma=1.0, reduction="mean"):
    """torch.nn.functional.smooth_l1_loss with beta = sigma."""
    d = np.abs(predict.astype(np.float64) - label.astype(np.float64))
    s = float(sigma)
    m = np.minimum(d, s)
    return _reduce(m * m / (2.0 * s) + (d - m), reduction, predict.dtype)


def _reduce(loss, reduction, dtype):
    """none: the elementwise loss; mean and sum: one value (a 0-d array, the scalar the InferShape gives)."""
    if reduction in ("mean", 1):
        return np.array(loss.mean()).astype(dtype)
    if reduction in ("sum", 2):
        return np.array(loss.sum()).astype(dtype)
    return loss.astype(dtype)
