import numpy as np


def rms_norm(x, g, epsilon=1e-6, gemma_mode=0, norm_type="RMS_NORM"):
    """RMSNorm over the last axis: y = x / sqrt(mean(x^2) + eps) * gamma, gamma taken as (1 + g) in Gemma mode."""
    x64 = x.astype(np.float64)
    gamma = g.astype(np.float64) + (1.0 if gemma_mode else 0.0)
    rstd = 1.0 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + epsilon)
    return (x64 * rstd * gamma).astype(x.dtype)
