"""LpNormV2 (CANN LpNormV2, torch.linalg.vector_norm): the p-norm of x over `axes` (all axes when empty):
(sum |x|^p)^(1/p); p = inf: max |x|; p = -inf: min |x|; p = 0: the count of non-zeros. keepdim keeps the reduced
axes as size 1; the result is at least epsilon."""

import numpy as np


def lp_norm_v2(x, *, p=2.0, axes=(), keepdim=False, epsilon=1e-12):
    xf = np.abs(x.astype(np.float64))
    ax = tuple(int(a) % x.ndim for a in axes) if len(axes) else tuple(range(x.ndim))
    if np.isposinf(p):
        r = xf.max(axis=ax, keepdims=keepdim)
    elif np.isneginf(p):
        r = xf.min(axis=ax, keepdims=keepdim)
    elif p == 0:
        r = (xf != 0).sum(axis=ax, keepdims=keepdim).astype(np.float64)
    else:
        r = (xf**p).sum(axis=ax, keepdims=keepdim) ** (1.0 / p)
    return np.maximum(r, epsilon).astype(x.dtype)
