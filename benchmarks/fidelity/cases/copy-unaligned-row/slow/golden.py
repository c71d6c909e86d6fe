"""CopyTile golden (copy-unaligned-row, slow side): the first 64 elements of the last tile each core read.

Core b's band is rows [b * R, (b + 1) * R) with R = rows / 48, read in [TILE_M, TILE_N] tiles, column tiles inner;
the last tile is the band's last TILE_M rows by the last column tile, so its first row is row (b + 1) * R - TILE_M
from column TILE_N * (ceil(cols / TILE_N) - 1)."""

import numpy as np

CORES = 48
TILE_M = 64
TILE_N = 1024


def copy_tile(x):
    rows, cols = x.shape
    band = rows // CORES
    col = (cols - 1) // TILE_N * TILE_N
    return np.stack([x[(b + 1) * band - TILE_M, col : col + 64] for b in range(CORES)]).astype(np.float16)
