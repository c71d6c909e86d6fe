import numpy as np


def scatter_elements(var, indices, updates, axis=0, reduce="None"):
    """ONNX ScatterElements: a copy of var where, for every position p of indices, the element at p with its
    `axis` coordinate replaced by indices[p] becomes updates[p] (reduce "add": has updates[p] added). Negative
    indices count from the end."""
    out = var.astype(np.float64) if reduce == "add" else var.copy()
    ax = axis % var.ndim
    idx = np.asarray(indices, dtype=np.int64)
    idx = np.where(idx < 0, idx + var.shape[ax], idx)
    for p in np.ndindex(*idx.shape):
        target = list(p)
        target[ax] = int(idx[p])
        if reduce == "add":
            out[tuple(target)] += float(updates[p])
        else:
            out[tuple(target)] = updates[p]
    return out.astype(var.dtype)
