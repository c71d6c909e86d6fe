import numpy as np


def fastsoftmax(data, head_num=1, q_seq_len=(1,)):
    """Unpadded attention-score softmax: data is 1-D, the concatenation over samples b of head_num x s_b x s_b score
    matrices (s_b = q_seq_len[b]); softmax runs over every row of s_b scores. Same layout out, float16."""
    x = data.astype(np.float64).reshape(-1)
    out = np.empty_like(x)
    pos = 0
    for s in q_seq_len:
        n = int(head_num) * int(s) * int(s)
        rows = x[pos : pos + n].reshape(-1, int(s))
        e = np.exp(rows - rows.max(axis=-1, keepdims=True))
        out[pos : pos + n] = (e / e.sum(axis=-1, keepdims=True)).reshape(-1)
        pos += n
    return out.astype(data.dtype)
