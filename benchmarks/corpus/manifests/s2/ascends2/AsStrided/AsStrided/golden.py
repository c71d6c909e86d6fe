import numpy as np


def as_strided(x, size, stride, storage_offset):
    """torch.as_strided(x, size, stride, storage_offset): y[i0, i1, ...] = flat(x)[offset + sum(ik * stride[k])]."""
    flat = x.reshape(-1)
    size = [int(s) for s in size.reshape(-1)]
    stride = np.asarray(stride, dtype=np.int64).reshape(-1)
    offset = int(np.asarray(storage_offset).reshape(-1)[0])
    idx = np.full(size, offset, dtype=np.int64)
    for k, n in enumerate(size):
        shape = [1] * len(size)
        shape[k] = n
        idx = idx + (np.arange(n, dtype=np.int64) * stride[k]).reshape(shape)
    return flat[idx]
