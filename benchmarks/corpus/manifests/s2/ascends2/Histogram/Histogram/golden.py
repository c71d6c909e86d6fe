import numpy as np


def histogram(x, bins=100, min=0.0, max=0.0):
    """torch.histc(x, bins, min, max): `bins` equal-width bins over [min, max] (the data's own range when
    min == max == 0); elements outside are ignored, an element equal to max falls in the last bin."""
    v = x.astype(np.float64).reshape(-1)
    lo, hi = float(min), float(max)
    if lo == 0.0 and hi == 0.0:
        lo, hi = float(v.min()), float(v.max())
    if lo == hi:
        lo, hi = lo - 1.0, hi + 1.0
    keep = v[(v >= lo) & (v <= hi)]
    idx = np.floor((keep - lo) * bins / (hi - lo)).astype(np.int64)
    idx = np.clip(idx, 0, bins - 1)
    counts = np.bincount(idx, minlength=bins)
    return counts.astype(x.dtype)
