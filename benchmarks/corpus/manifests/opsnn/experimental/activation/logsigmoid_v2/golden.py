import numpy as np


def logsigmoid_v2(x):
    """log(sigmoid(x)) = -log(1 + exp(-x)), computed stably."""
    return (-np.logaddexp(0.0, -x.astype(np.float64))).astype(x.dtype)
