"""Golden for RmsNorm in float32: y = x * (1 / sqrt(mean(x^2) + eps)) * gamma over the last axis, with the
mean formed as sum * (1/N) like the kernel's avgFactor."""
import numpy as np


def rms_norm(x, gamma, epsilon=1e-6):
    xf = x.astype(np.float32)
    n = xf.shape[-1]
    sq_sum = (xf * xf).sum(axis=-1, keepdims=True, dtype=np.float64).astype(np.float32)
    ms = sq_sum * np.float32(1.0 / n)
    rstd = np.float32(1.0) / np.sqrt(ms + np.float32(epsilon))
    return ((xf * rstd) * gamma.astype(np.float32)).astype(np.float32)
