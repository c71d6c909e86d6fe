import numpy as np


def div(x1, x2):
    """TF Div with broadcasting: true division for floats (in float64), truncation toward zero for integers."""
    if np.issubdtype(x1.dtype, np.integer):
        q = np.trunc(x1.astype(np.float64) / x2.astype(np.float64))
        return q.astype(x1.dtype)
    return (x1.astype(np.float64) / x2.astype(np.float64)).astype(x1.dtype)
