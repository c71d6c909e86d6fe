"""Golden for fidelity case A11: half [M, 8192] ND to the compact NZ layout [8192 / 16, M, 16] (column block c of
row r at ((c * M) + r) * 16), returned flat in an [M, 8192] array of the same size."""

import numpy as np


def nd2nz(x):
    rows, cols = x.shape
    return np.ascontiguousarray(x.reshape(rows, cols // 16, 16).transpose(1, 0, 2)).reshape(rows, cols)
