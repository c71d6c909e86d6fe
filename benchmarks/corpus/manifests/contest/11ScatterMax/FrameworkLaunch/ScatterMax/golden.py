"""ScatterMax (TensorFlow scatter_max): x[index[i], ...] = max(x[index[i], ...], update[i, ...]) for every i,
repeated indices taking the maximum of all their updates; the result is the updated x."""

import numpy as np


def scatter_max(x, index, update, *, use_locking=False):
    out = x.copy()
    idx = index.reshape(-1).astype(np.int64)
    upd = update.reshape((idx.size,) + x.shape[1:]).astype(x.dtype)
    np.maximum.at(out, idx, upd)
    return out
