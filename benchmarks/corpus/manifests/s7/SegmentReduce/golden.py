"""SegmentReduce (torch.segment_reduce with lengths): consecutive segments of data along `axis`, of the given
lengths, each reduced with `reduce` (sum, mean, max, min, prod); an empty segment gives `initial` when given, else
the reduction's identity (0, nan for mean, -inf, inf, 1)."""

import numpy as np

_EMPTY = {"sum": 0.0, "mean": np.nan, "max": -np.inf, "min": np.inf, "prod": 1.0}


def segment_reduce(data, lengths=None, indices=None, offsets=None, initial=None, *, reduce, axis=0, unsafe=False):
    x = np.moveaxis(data.astype(np.float64), axis, 0)
    if lengths is not None:
        bounds = np.concatenate([[0], np.cumsum(lengths.reshape(-1).astype(np.int64))])
    else:
        bounds = offsets.reshape(-1).astype(np.int64)
    init = None if initial is None else float(np.asarray(initial, dtype=np.float64).reshape(-1)[0])
    out = []
    for s, e in zip(bounds[:-1], bounds[1:], strict=True):
        seg = x[s:e]
        if seg.shape[0] == 0:
            out.append(np.full(x.shape[1:], _EMPTY[reduce] if init is None else init))
            continue
        if reduce == "sum":
            r = seg.sum(0)
        elif reduce == "mean":
            r = seg.sum(0) / seg.shape[0] if init is None else (seg.sum(0) + init) / (seg.shape[0] + 1)
        elif reduce == "max":
            r = seg.max(0)
        elif reduce == "min":
            r = seg.min(0)
        else:
            r = seg.prod(0)
        if init is not None and reduce == "sum":
            r = r + init
        elif init is not None and reduce == "max":
            r = np.maximum(r, init)
        elif init is not None and reduce == "min":
            r = np.minimum(r, init)
        elif init is not None and reduce == "prod":
            r = r * init
        out.append(r)
    return np.moveaxis(np.stack(out), 0, axis).astype(data.dtype)
