import numpy as np


def lerp(start, end, weight):
    """torch.lerp(start, end, weight) = start + weight * (end - start), broadcasting, in float64."""
    s, e, w = (a.astype(np.float64) for a in (start, end, weight))
    return (s + w * (e - s)).astype(start.dtype)
