import numpy as np


def gather_pre_rms_norm(x, r_in, indices, g, epsilon=1e-6, norm_type="GATHER_PRE_RMS_NORM"):
    """Gather + pre-norm residual RMSNorm: r_out[i] = x[i] + r_in[indices[i]];
    y[i] = r_out[i] / sqrt(mean(r_out[i]^2) + eps) * g, y in float32. Returns (y, r_out)."""
    s = x.astype(np.float64) + r_in.astype(np.float64)[indices.astype(np.int64)]
    rstd = 1.0 / np.sqrt(np.mean(s * s, axis=-1, keepdims=True) + epsilon)
    return (s * rstd * g.astype(np.float64)).astype(np.float32), s.astype(x.dtype)
