import numpy as np


def bias_add(x, bias, data_format="NHWC"):
    """tf.nn.bias_add: add bias[c] along the channel axis, axis 1 for NCHW/NCDHW, the last axis otherwise (and the
    only axis of a 1-D x)."""
    axis = 1 if data_format in ("NCHW", "NCDHW") and x.ndim > 1 else x.ndim - 1
    shape = [1] * x.ndim
    shape[axis] = bias.shape[0]
    if x.dtype.kind == "f":
        out = x.astype(np.float64) + bias.astype(np.float64).reshape(shape)
    else:
        out = x.astype(np.int64) + bias.astype(np.int64).reshape(shape)
    return out.astype(x.dtype)
