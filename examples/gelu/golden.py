"""Golden for Gelu (tanh approximation), evaluated the way the kernel does: in float32, as
x / (1 + exp(-2 * sqrt(2/pi) * (x + 0.044715 x^3))), then cast back to the input dtype."""
import numpy as np


def gelu(x):
    xf = x.astype(np.float32)
    u = xf * xf * xf * np.float32(0.044715) + xf
    with np.errstate(over="ignore"):
        denom = np.exp(u * np.float32(-1.5957691216057308)) + np.float32(1.0)
    y = xf / denom
    return y.astype(x.dtype)
