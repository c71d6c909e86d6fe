"""Addcmul (torch.addcmul): y = input_data + value * x1 * x2, value a one-element tensor."""

import numpy as np


def addcmul(value, input_data, x1, x2):
    v = value.reshape(-1)[0].astype(np.float64)
    if np.issubdtype(input_data.dtype, np.integer):
        out = input_data.astype(np.int64) + np.int64(v) * x1.astype(np.int64) * x2.astype(np.int64)
        return out.astype(input_data.dtype)
    out = input_data.astype(np.float64) + v * x1.astype(np.float64) * x2.astype(np.float64)
    return out.astype(input_data.dtype)
