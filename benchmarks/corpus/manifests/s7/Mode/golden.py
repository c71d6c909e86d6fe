"""Mode (torch.mode, dim=-1): along the last dimension, the most frequent value (the smallest among equally frequent
ones) and the index of its last occurrence (what torch returns on CPU); keepdim keeps the reduced axis as size 1."""

import numpy as np


def mode(input, *, keepdim=False):
    rows = input.reshape(-1, input.shape[-1])
    values = np.empty(rows.shape[0], dtype=input.dtype)
    indices = np.empty(rows.shape[0], dtype=np.int64)
    for r, row in enumerate(rows):
        uniq, counts = np.unique(row, return_counts=True)  # sorted ascending: argmax picks the smallest tie
        v = uniq[np.argmax(counts)]
        values[r] = v
        indices[r] = np.nonzero(row == v)[0][-1]
    shape = input.shape[:-1] + ((1,) if keepdim else ())
    return values.reshape(shape), indices.reshape(shape)
