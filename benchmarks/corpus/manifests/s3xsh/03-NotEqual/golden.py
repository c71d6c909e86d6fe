import numpy as np


def not_equal(x1, x2):
    """tf.math.not_equal: elementwise x1 != x2, a bool tensor."""
    return np.not_equal(x1, x2)
