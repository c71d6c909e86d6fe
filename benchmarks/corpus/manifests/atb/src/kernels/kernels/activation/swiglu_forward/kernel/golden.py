import numpy as np


def _sigmoid(v):
    return np.exp(np.minimum(v, 0.0)) / (1.0 + np.exp(-np.abs(v)))


def swiglu_forward(x, dim=-1, activation_type="ACTIVATION_SWIGLU_FORWARD"):
    """SwiGLU: split x in two halves a, b along `dim` and return silu(a) * b = a * sigmoid(a) * b."""
    a, b = np.split(x.astype(np.float64), 2, axis=dim)
    return (a * _sigmoid(a) * b).astype(x.dtype)
