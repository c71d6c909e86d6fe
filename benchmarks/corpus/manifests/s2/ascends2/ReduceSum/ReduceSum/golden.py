import numpy as np


def reduce_sum(x, axes, keep_dims=False, ignore_nan=False, dtype="float"):
    """ONNX/TF ReduceSum over the axes tensor's values (negative ones count from the end, repeats count once);
    with ignore_nan, NaN elements count as 0. Accumulated in float64."""
    ax = tuple(sorted({int(a) % x.ndim for a in np.asarray(axes).reshape(-1)}))
    v = x.astype(np.float64)
    if ignore_nan:
        v = np.where(np.isnan(v), 0.0, v)
    return v.sum(axis=ax, keepdims=bool(keep_dims)).astype(x.dtype)
