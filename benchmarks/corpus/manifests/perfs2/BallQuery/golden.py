"""BallQuery (mmcv ball_query): for each center, the indices of the first `sample_num` points of the same batch
whose squared distance d2 satisfies min_radius^2 <= d2 < max_radius^2, in point order; the unfilled slots repeat the
first index found; a center with no point in range keeps zeros."""

import numpy as np


def ball_query(xyz, center_xyz, xyz_batch_cnt=None, center_xyz_batch_cnt=None, *, min_radius, max_radius, sample_num):
    half = xyz.dtype == np.float16
    b, n, _ = xyz.shape
    m = center_xyz.shape[1]
    out = np.zeros((b, m, sample_num), dtype=np.int32)
    lo, hi = np.float32(min_radius) ** 2, np.float32(max_radius) ** 2
    for bi in range(b):
        diff = xyz[bi][None, :, :] - center_xyz[bi][:, None, :]  # (m, n, 3) in the input precision
        sq = (diff * diff).astype(np.float32)  # fp16 inputs: the difference and its square rounded to fp16
        d2 = sq[..., 0] + sq[..., 1] + sq[..., 2]
        if not half:
            d2 = (np.square(xyz[bi][None].astype(np.float64) - center_xyz[bi][:, None].astype(np.float64))).sum(-1)
        for ci in range(m):
            hits = np.nonzero((d2[ci] >= lo) & (d2[ci] < hi))[0][:sample_num]
            if hits.size:
                out[bi, ci, :] = hits[0]
                out[bi, ci, : hits.size] = hits
    return out
