import numpy as np


def cumsum(x, axis, exclusive=False, reverse=False):
    """tf.math.cumsum(x, axis, exclusive, reverse), accumulated in float64."""
    a = int(np.asarray(axis).reshape(-1)[0])
    v = x.astype(np.float64)
    if reverse:
        v = np.flip(v, axis=a)
    c = np.cumsum(v, axis=a)
    if exclusive:
        c = c - v
    if reverse:
        c = np.flip(c, axis=a)
    return c.astype(x.dtype)
