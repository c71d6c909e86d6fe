"""Golden for ReduceSumAll: the sum of every element, accumulated in float64 and rounded once to float32
(the kernel's lane-wise partial sums are close to that; the manifest tolerance covers the order difference)."""
import numpy as np


def reduce_sum_all(x):
    return np.array([x.astype(np.float64).sum()], dtype=np.float32)
