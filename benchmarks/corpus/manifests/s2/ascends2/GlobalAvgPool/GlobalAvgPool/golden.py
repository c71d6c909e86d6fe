import numpy as np


def global_avg_pool(x):
    """ONNX GlobalAveragePool: the mean over every spatial axis (2..), kept as size-1 axes: (N, C, 1, 1, ...)."""
    axes = tuple(range(2, x.ndim))
    return x.astype(np.float64).mean(axis=axes, keepdims=True).astype(x.dtype)
