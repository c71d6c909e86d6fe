import numpy as np


def nll_loss(x, target, weight, reduction="mean", ignore_index=-100):
    """torch.nn.functional.nll_loss for x (N, C) log-probabilities, target (N,), class weights (C,):
    loss_n = -weight[t_n] * x[n, t_n] (0 where t_n == ignore_index); "none" keeps (N,), "sum" adds them,
    "mean" divides the sum by the total weight of the counted targets."""
    t = np.asarray(target, dtype=np.int64).reshape(-1)
    v = x.astype(np.float64).reshape(t.size, -1)
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    w = np.where(keep, weight.astype(np.float64)[safe], 0.0)
    loss = -w * v[np.arange(t.size), safe]
    if reduction == "none":
        return loss.astype(x.dtype)
    if reduction == "sum":
        return np.array(loss.sum(), dtype=x.dtype)
    return np.array(loss.sum() / w.sum(), dtype=x.dtype)
