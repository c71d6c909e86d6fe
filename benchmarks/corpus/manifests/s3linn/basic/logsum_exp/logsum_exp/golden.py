import numpy as np


def logsum_exp(x, dim=(0,), keep_dim=False):
    """torch.logsumexp(x, dim, keepdim): log(sum(exp(x))) over the axes in dim, computed stably in float64."""
    axes = tuple(sorted({int(d) % x.ndim for d in dim}))
    v = x.astype(np.float64)
    m = v.max(axis=axes, keepdims=True)
    y = np.log(np.exp(v - m).sum(axis=axes, keepdims=True)) + m
    if not keep_dim:
        y = np.squeeze(y, axis=axes)
    return y.astype(x.dtype)
