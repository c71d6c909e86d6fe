import numpy as np


def rms_norm_quant(x, g, b, scale, offset, epsilon=1e-6, quant_min=-128, norm_type="RMS_NORM"):
    """RMSNorm then static int8 quantisation: v = x / sqrt(mean(x^2, -1) + eps) * g + b;
    y = clip(round_half_even(v / scale + offset), quant_min, 127) as int8 (scale and offset one value each)."""
    x64 = x.astype(np.float64)
    rstd = 1.0 / np.sqrt(np.mean(x64 * x64, axis=-1, keepdims=True) + epsilon)
    v = x64 * rstd * g.astype(np.float64) + b.astype(np.float64)
    q = np.rint(v / float(scale.reshape(-1)[0]) + float(offset.reshape(-1)[0]))
    return np.clip(q, quant_min, 127).astype(np.int8)
