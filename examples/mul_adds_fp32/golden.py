"""MulAddsFp32 golden: z = x * y + alpha in float32, rounding after the multiply as the kernel's Mul does."""
import numpy as np


def mul_adds_fp32(x, y, alpha=1.0):
    prod = (x.astype(np.float32) * y.astype(np.float32)).astype(np.float32)
    return (prod + np.float32(alpha)).astype(np.float32)
