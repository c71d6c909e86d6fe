"""Golden for Silu: x / (1 + exp(-x)) in float32 (fp16 inputs widened first), cast back to the input dtype."""
import numpy as np


def silu(x):
    xf = x.astype(np.float32)
    with np.errstate(over="ignore"):
        denom = np.exp(xf * np.float32(-1.0)) + np.float32(1.0)
    return (xf / denom).astype(x.dtype)
