import numpy as np


def rms_norm_forward(x, gamma, epsilon=1e-6, norm_type="RMS_NORM_FORWARD"):
    """RMSNorm forward as aclnnRmsNorm: rstd = 1 / sqrt(mean(x^2, -1) + eps) (float32, one per row),
    y = x * rstd * gamma. Returns (y, rstd)."""
    x64 = x.astype(np.float64)
    rstd = 1.0 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + epsilon)
    return (x64 * rstd * gamma.astype(np.float64)).astype(x.dtype), rstd.astype(np.float32)
