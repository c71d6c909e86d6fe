import numpy as np


def three_nn(xyz1, xyz2):
    """PointNet++ three_nn (the TensorFlow op): for every point of xyz1 (B, N, 3), its three nearest points in
    xyz2 (B, M, 3); dist (B, N, 3) holds the squared Euclidean distances in ascending order, indices (B, N, 3) the
    int32 positions in xyz2."""
    a = xyz1.astype(np.float64)
    b = xyz2.astype(np.float64)
    d2 = ((a[:, :, None, :] - b[:, None, :, :]) ** 2).sum(axis=-1)  # (B, N, M)
    idx = np.argsort(d2, axis=-1, kind="stable")[:, :, :3]
    dist = np.take_along_axis(d2, idx, axis=-1)
    return dist.astype(np.float32), idx.astype(np.int32)
