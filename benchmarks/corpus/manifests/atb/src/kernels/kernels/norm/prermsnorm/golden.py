import numpy as np


def pre_rms_norm(x, bias, res_in, g, epsilon=1e-6, norm_type="RMS_NORM"):
    """Pre-norm residual RMSNorm: res_out = x + bias + res_in (bias broadcast along the last axis);
    y = res_out / sqrt(mean(res_out^2, -1) + eps) * g. Returns (y, res_out)."""
    s = x.astype(np.float64) + bias.astype(np.float64) + res_in.astype(np.float64)
    rstd = 1.0 / np.sqrt(np.mean(s * s, axis=-1, keepdims=True) + epsilon)
    return (s * rstd * g.astype(np.float64)).astype(x.dtype), s.astype(x.dtype)
