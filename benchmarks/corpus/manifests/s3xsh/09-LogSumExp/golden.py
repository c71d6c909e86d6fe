import numpy as np


def logsumexp(x, dim=(0,), keep_dim=False):
    """torch.logsumexp(x, dim, keepdim), stably in float64: max + log(sum(exp(x - max))) over the axes in dim."""
    axes = tuple(sorted({int(d) % x.ndim for d in dim}))
    v = x.astype(np.float64)
    m = v.max(axis=axes, keepdims=True)
    y = m + np.log(np.exp(v - m).sum(axis=axes, keepdims=True))
    return (y if keep_dim else np.squeeze(y, axis=axes)).astype(x.dtype)
