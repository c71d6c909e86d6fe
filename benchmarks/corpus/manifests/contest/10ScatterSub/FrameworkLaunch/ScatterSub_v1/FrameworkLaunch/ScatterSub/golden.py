"""ScatterSub (TensorFlow scatter_sub): x[index[i], ...] -= update[i, ...] for every i, repeated indices
accumulating; the result is the updated x."""

import numpy as np


def scatter_sub(x, index, update, *, use_locking=False):
    acc = np.int64 if np.issubdtype(x.dtype, np.integer) else np.float64
    out = x.astype(acc)
    idx = index.reshape(-1).astype(np.int64)
    upd = update.astype(acc).reshape((idx.size,) + x.shape[1:])
    np.subtract.at(out, idx, upd)
    return out.astype(x.dtype)
