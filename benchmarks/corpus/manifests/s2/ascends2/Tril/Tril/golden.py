import numpy as np


def tril(x, diagonal=0):
    """torch.tril(x, diagonal) over the last two axes (a batch of matrices)."""
    return np.tril(x, k=int(diagonal)).astype(x.dtype)
