"""AxpyCustom golden: z = alpha * x + y, computed in float64 and rounded once to float32 as Axpy does."""
import numpy as np


def axpy_custom(x, y, alpha=1.0):
    exact = x.astype(np.float64) * np.float64(np.float32(alpha)) + y.astype(np.float64)
    return exact.astype(np.float32)
