"""SegmentReduceGrad (torch's segment_reduce backward, lengths form): the gradient w.r.t. data of
segment_reduce(data, reduce, lengths, axis). sum: each element gets its segment's grad; mean: grad / length;
max, min: grad shared equally among the elements equal to the segment's output; prod: grad * output / element
(product of the others where the element is zero)."""

import numpy as np


def segment_reduce_grad(grad, output, data, lengths=None, offsets=None, initial=None, *, reduce, axis=0):
    g = np.moveaxis(grad.astype(np.float64), axis, 0)
    o = np.moveaxis(output.astype(np.float64), axis, 0)
    x = np.moveaxis(data.astype(np.float64), axis, 0)
    if lengths is not None:
        bounds = np.concatenate([[0], np.cumsum(lengths.reshape(-1).astype(np.int64))])
    else:
        bounds = offsets.reshape(-1).astype(np.int64)
    out = np.zeros_like(x)
    for k, (s, e) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        if e <= s:
            continue
        seg = x[s:e]
        if reduce == "sum":
            out[s:e] = g[k]
        elif reduce == "mean":
            out[s:e] = g[k] / (e - s)
        elif reduce in ("max", "min"):
            hit = seg == o[k]
            count = np.maximum(hit.sum(0), 1)
            out[s:e] = np.where(hit, g[k] / count, 0.0)
        else:
            for t in range(e - s):
                others = np.delete(seg, t, axis=0).prod(0)
                out[s + t] = g[k] * others
    return np.moveaxis(out, 0, axis).astype(data.dtype)
