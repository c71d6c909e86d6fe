import numpy as np


def replication_pad2d(x, paddings):
    """torch.nn.ReplicationPad2d with paddings (left, right, top, bottom) on the last two axes: the edge values
    repeated outward."""
    left, right, top, bottom = (int(p) for p in np.asarray(paddings).reshape(-1)[:4])
    width = [(0, 0)] * (x.ndim - 2) + [(top, bottom), (left, right)]
    return np.pad(x, width, mode="edge")
