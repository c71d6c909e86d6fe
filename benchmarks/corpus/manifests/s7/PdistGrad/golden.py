"""PdistGrad (torch's pdist backward): the gradient of pdist(input, p) w.r.t. input (N, M), given grad and the
forward result pdist, both of N * (N - 1) / 2 pairs i < j in row-major order of the upper triangle. Pair k with
diff = x_i - x_j and distance d adds g_k * dd/ddiff to row i and subtracts it from row j."""

import numpy as np


def pdist_grad(grad, input, pdist, *, p):
    x = input.astype(np.float64)
    n = x.shape[0]
    i, j = np.triu_indices(n, k=1)
    g = grad.astype(np.float64).reshape(-1)[:, None]
    d = pdist.astype(np.float64).reshape(-1)[:, None]
    diff = x[i] - x[j]
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 0:
            part = np.zeros_like(diff)
        elif p == 1:
            part = np.sign(diff)
        elif np.isinf(p):
            part = np.sign(diff) * (np.abs(diff) == d)
        elif p == 2:
            part = diff / d
        else:
            part = diff * np.abs(diff) ** (p - 2) / d ** (p - 1)
        part = np.where(d == 0, 0.0, part)
        if p < 1:
            part = np.where(diff == 0, 0.0, part)
    contrib = g * part
    out = np.zeros_like(x)
    np.add.at(out, i, contrib)
    np.add.at(out, j, -contrib)
    return out.astype(input.dtype)
