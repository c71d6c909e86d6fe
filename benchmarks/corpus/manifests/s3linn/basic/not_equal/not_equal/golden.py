import numpy as np


def not_equal(x1, x2):
    """torch.ne / tf.math.not_equal with broadcasting: a bool tensor."""
    return np.not_equal(x1, x2)
