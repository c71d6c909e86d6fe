import numpy as np


def rms_norm_backward(dy, x, rstd, gamma, norm_type="RMS_NORM_BACKWARD"):
    """Backward of y = x * rstd * gamma with rstd = (mean(x^2, -1) + eps)^-1/2 given per row (float32):
    dx = rstd * (dy * gamma) - rstd^3 * x * mean(dy * gamma * x, -1), dgamma = sum over rows of dy * x * rstd
    (float32). Returns (dx, dgamma)."""
    d = x.shape[-1]
    x64 = x.reshape(-1, d).astype(np.float64)
    dy64 = dy.reshape(-1, d).astype(np.float64)
    r = rstd.reshape(-1, 1).astype(np.float64)
    dyg = dy64 * gamma.astype(np.float64).reshape(1, d)
    dx = r * dyg - r**3 * x64 * np.mean(dyg * x64, axis=-1, keepdims=True)
    dgamma = np.sum(dy64 * x64 * r, axis=0)
    return dx.reshape(x.shape).astype(x.dtype), dgamma.astype(np.float32)
