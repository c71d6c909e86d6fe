"""z = x + y in the inputs' dtype."""

import numpy as np


def add(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return (x + y).astype(x.dtype)
