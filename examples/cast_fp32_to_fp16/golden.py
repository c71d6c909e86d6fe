"""CastFp32ToFp16 golden: float32 -> float16 with round-to-nearest-even (numpy's astype rounding)."""
import numpy as np


def cast_fp32_to_fp16(x):
    return x.astype(np.float32).astype(np.float16)
