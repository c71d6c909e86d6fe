"""Golden for SoftmaxRow: softmax over the last axis in float32, shifted by the row max and scaled by the
reciprocal of the row sum, as the kernel does."""
import numpy as np


def softmax_row(x):
    xf = x.astype(np.float32)
    e = np.exp(xf - xf.max(axis=-1, keepdims=True))
    s = e.sum(axis=-1, keepdims=True, dtype=np.float64).astype(np.float32)
    return (e * (np.float32(1.0) / s)).astype(np.float32)
