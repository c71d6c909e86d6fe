"""Eye (TensorFlow tf.eye / CANN Eye): y becomes a batch of identity matrices, batch_shape + [num_rows, num_columns]
(num_columns 0 means square), ones on the main diagonal and zeros elsewhere, whatever y held before."""

import numpy as np


def eye(y, *, num_rows, num_columns=0, batch_shape=(), dtype=0):
    cols = num_columns if num_columns > 0 else num_rows
    out = np.broadcast_to(np.eye(num_rows, cols), y.shape)
    return out.astype(y.dtype)
