"""Golden for MultiKeyAbsSub: |x - y| with the difference rounded to float16 first, as the kernel's half Sub does
(float32 holds the exact difference of two halves for the value ranges used, so one rounding matches)."""
import numpy as np


def multi_key_abs_sub(x, y):
    diff = (x.astype(np.float32) - y.astype(np.float32)).astype(np.float16)
    return np.abs(diff)
