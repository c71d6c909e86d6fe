"""GroupNormV2 (torch.nn.functional.group_norm, CANN GroupNormV2): per (batch, group) mean and biased variance,
y = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c]; mean and rstd = 1 / sqrt(var + eps) of shape (N, G)."""

import numpy as np


def group_norm_v2(x, gamma, beta, *, num_groups, data_format="NCHW", eps=1e-4, is_training=True):
    n, c = x.shape[0], x.shape[1]
    g = int(num_groups)
    xf = x.astype(np.float64).reshape(n, g, -1)
    mean = xf.mean(axis=2)
    var = xf.var(axis=2)
    rstd = 1.0 / np.sqrt(var + eps)
    norm = ((xf - mean[..., None]) * rstd[..., None]).reshape(x.shape)
    bshape = (1, c) + (1,) * (x.ndim - 2)
    y = norm * gamma.astype(np.float64).reshape(bshape) + beta.astype(np.float64).reshape(bshape)
    return y.astype(x.dtype), mean.astype(x.dtype), rstd.astype(x.dtype)
