"""MseLossGrad (CANN MseLossGrad, torch mse_loss backward): z = 2 * (predict - label) * dout, divided by the element
count for reduction 'mean'; dout is the input named x."""

import numpy as np


def mse_loss_grad(predict, label, x, *, reduction="mean"):
    g = 2.0 * (predict.astype(np.float64) - label.astype(np.float64)) * x.astype(np.float64)
    if reduction == "mean":
        g = g / predict.size
    return g.astype(predict.dtype)
