import math

import numpy as np


def gelu(x):
    """torch.nn.functional.gelu (exact): x * 0.5 * (1 + erf(x / sqrt(2))), in float64."""
    v = x.astype(np.float64)
    erf = np.vectorize(math.erf)
    return (0.5 * v * (1.0 + erf(v / math.sqrt(2.0)))).astype(x.dtype)
