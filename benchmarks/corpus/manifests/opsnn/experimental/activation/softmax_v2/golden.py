import numpy as np


def softmax_v2(x, dim=-1):
    """exp(x - max) / sum(exp(x - max)) along dim, in float64."""
    v = x.astype(np.float64)
    e = np.exp(v - v.max(axis=int(dim), keepdims=True))
    return (e / e.sum(axis=int(dim), keepdims=True)).astype(x.dtype)
