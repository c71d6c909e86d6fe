import numpy as np


def _sigmoid(v):
    return np.exp(np.minimum(v, 0.0)) / (1.0 + np.exp(-np.abs(v)))


def swiglu_backward(grad_out, x, dim=-1, activation_type="ACTIVATION_SWIGLU_BACKWARD"):
    """Gradient of y = silu(a) * b (a, b the halves of x along `dim`) w.r.t. x, given dL/dy:
    dA = g * b * s * (1 + a * (1 - s)), dB = g * a * s with s = sigmoid(a); returned as concat(dA, dB)."""
    a, b = np.split(x.astype(np.float64), 2, axis=dim)
    g = grad_out.astype(np.float64)
    s = _sigmoid(a)
    da = g * b * s * (1.0 + a * (1.0 - s))
    db = g * a * s
    return np.concatenate([da, db], axis=dim).astype(x.dtype)
