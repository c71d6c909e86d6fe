import numpy as np


def gelu_forward(x, activation_type="ACTIVATION_GELU"):
    """GELU, tanh approximation (torch.nn.functional.gelu(approximate='tanh')):
    y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    x64 = x.astype(np.float64)
    y = 0.5 * x64 * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x64 + 0.044715 * x64**3)))
    return y.astype(x.dtype)
