"""LeakyRelu golden: y = x >= 0 ? x : slope * x.

The kernel converts the slope to the tensor dtype first and rounds the product once, so for fp16 the golden
multiplies by float16(slope) in float32 (exact for two fp16 factors) and then rounds to fp16.
"""
import numpy as np


def leaky_relu(x, negative_slope=0.01):
    slope = np.float32(np.asarray(negative_slope, dtype=np.float32).astype(x.dtype))
    xf = x.astype(np.float32)
    neg = (xf * slope).astype(x.dtype)
    return np.where(x >= 0, x, neg).astype(x.dtype)
