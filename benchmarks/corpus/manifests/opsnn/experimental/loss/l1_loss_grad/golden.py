import numpy as np


def l1_loss_grad(grads, predict, label, reduction="mean"):
    """The gradient of the L1 loss with respect to predict."""
    cof = 1.0 / predict.size if reduction == "mean" else 1.0
    sign = np.sign(predict.astype(np.float64) - label.astype(np.float64))
    return (grads.astype(np.float64) * sign * cof).astype(grads.dtype)
