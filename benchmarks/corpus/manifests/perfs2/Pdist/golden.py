"""Pdist (torch.nn.functional.pdist): the p-norm distance between every pair of rows i < j of x (N, M), in row-major
order of the upper triangle: N * (N - 1) / 2 values."""

import numpy as np


def pdist(x, *, p=2.0):
    xf = x.astype(np.float64)
    n = xf.shape[0]
    i, j = np.triu_indices(n, k=1)
    d = np.abs(xf[i] - xf[j])
    if p == 0:
        out = (d != 0).sum(axis=1).astype(np.float64)
    elif np.isinf(p):
        out = d.max(axis=1)
    else:
        out = (d**p).sum(axis=1) ** (1.0 / p)
    return out.astype(x.dtype)
