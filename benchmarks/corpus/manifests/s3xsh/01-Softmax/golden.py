import numpy as np


def softmax(x, dim=-1):
    """torch.softmax(x, dim) in float64: exp(x - max) normalised to sum 1 along dim."""
    v = x.astype(np.float64)
    e = np.exp(v - v.max(axis=dim, keepdims=True))
    return (e / e.sum(axis=dim, keepdims=True)).astype(x.dtype)
