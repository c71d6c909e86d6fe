import numpy as np


def scatter_elements(var, indices, updates, axis=0, reduce="None"):
    """ONNX ScatterElements, in place on var: for every position p of indices, the element of var at p with its
    `axis` coordinate replaced by indices[p] becomes updates[p] ("add": has it added, "multiply"/"mul": is
    multiplied by it). Negative indices count from the end. Returns the updated var."""
    out = var.astype(np.float64) if reduce in ("add", "multiply", "mul") else var.copy()
    ax = axis % var.ndim
    idx = np.asarray(indices, dtype=np.int64)
    idx = np.where(idx < 0, idx + var.shape[ax], idx)
    for p in np.ndindex(*idx.shape):
        target = list(p)
        target[ax] = int(idx[p])
        t = tuple(target)
        if reduce == "add":
            out[t] += float(updates[p])
        elif reduce in ("multiply", "mul"):
            out[t] *= float(updates[p])
        else:
            out[t] = updates[p]
    return out.astype(var.dtype)
