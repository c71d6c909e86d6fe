import numpy as np


def leaky_relu_custom(x, negative_slope=0.0):
    """y = x for x >= 0, negative_slope * x otherwise (torch.nn.functional.leaky_relu), float32."""
    x64 = x.astype(np.float64)
    return np.where(x64 >= 0, x64, x64 * float(negative_slope)).astype(x.dtype)
