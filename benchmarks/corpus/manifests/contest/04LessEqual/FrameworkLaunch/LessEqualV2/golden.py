"""LessEqual (TensorFlow tf.math.less_equal): 1 where x1 <= x2, else 0 (in the OpDef's output dtype)."""

import numpy as np


def less_equal(x1, x2):
    return (x1 <= x2).astype(np.uint8)
