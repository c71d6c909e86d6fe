"""ClipByValue (TensorFlow tf.clip_by_value): z = min(max(x, minv), maxv), minv and maxv one-element tensors."""

import numpy as np


def clip_by_value(x, minv, maxv):
    lo = minv.reshape(-1)[0]
    hi = maxv.reshape(-1)[0]
    return np.minimum(np.maximum(x, lo), hi).astype(x.dtype)
