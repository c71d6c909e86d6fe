"""CopyWhole golden (copy-same-address, fast side): the first 64 elements of the last tile each core read.

The matrix is cut into 48 row blocks of R = rows / 48 rows. At step s core b reads block s (same order) or block
g + (s + b) mod 48 with g = s - s mod 48 (staggered); its last tile is the last step's block, last TILE_M rows,
last column tile."""

import numpy as np

CORES = 48
TILE_M = 128
TILE_N = 64
STAGGERED = True


def copy_whole(x):
    rows, cols = x.shape
    band = rows // CORES
    last = rows // band - 1
    out = []
    for b in range(CORES):
        block = last - last % CORES + (last + b) % CORES if STAGGERED else last
        out.append(x[(block + 1) * band - TILE_M, cols - TILE_N : cols - TILE_N + 64])
    return np.stack(out).astype(np.float16)
