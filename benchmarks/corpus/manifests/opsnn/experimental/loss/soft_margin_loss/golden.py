import numpy as np


def soft_margin_loss(self, target, reduction=1):
    """torch.nn.functional.soft_margin_loss; reduction as the OpDef's integer."""
    z = -(self.astype(np.float64) * target.astype(np.float64))
    return _reduce(np.logaddexp(0.0, z), int(reduction), self.dtype)


def _reduce(loss, reduction, dtype):
    """none: the elementwise loss; mean and sum: one value (a 0-d array, the scalar the InferShape gives)."""
    if reduction in ("mean", 1):
        return np.array(loss.mean()).astype(dtype)
    if reduction in ("sum", 2):
        return np.array(loss.sum()).astype(dtype)
    return loss.astype(dtype)
