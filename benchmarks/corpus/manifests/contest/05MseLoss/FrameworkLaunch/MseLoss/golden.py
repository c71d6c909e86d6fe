"""MseLoss (torch.nn.functional.mse_loss): (x - y)^2 elementwise, then its mean, its sum, or kept ('none')."""

import numpy as np


def mse_loss(x, y, *, reduction="mean"):
    d = (x.astype(np.float64) - y.astype(np.float64)) ** 2
    if reduction == "mean":
        return np.array([d.mean()]).astype(x.dtype)
    if reduction == "sum":
        return np.array([d.sum()]).astype(x.dtype)
    return d.astype(x.dtype)
