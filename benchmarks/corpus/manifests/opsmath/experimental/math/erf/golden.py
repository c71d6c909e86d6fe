import math

import numpy as np


def erf(x):
    """out = erf(x) = 2/sqrt(pi) * integral_0^x exp(-t^2) dt, as torch.erf."""
    out = np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64))
    return out.astype(x.dtype)
