import numpy as np


def _rotate(x, head_dim, rotary_coeff):
    """Split each head into rotary_coeff chunks; chunk pairs (c0, c1) become (-c1, c0)."""
    t = x.reshape(x.shape[0], -1, rotary_coeff // 2, 2, head_dim // rotary_coeff)
    return np.stack([-t[:, :, :, 1], t[:, :, :, 0]], axis=3).reshape(x.shape)


def rotary_pos_emb(q, k, cos, sin, seq_len, rotary_coeff=2, cos_format=0):
    """Rotary position embedding on packed tokens: q is ntokens x (heads_q * head_dim), k likewise, cos and sin
    ntokens x head_dim (cos_format 0: one row per token); out = x * cos + rotate(x) * sin per head, rotate being
    rotate_half for rotary_coeff 2 (and the chunk-pair generalisation for 4 or head_dim). seq_len only sums to
    ntokens. Returns (out_q, out_k)."""
    d = cos.shape[-1]
    c = np.tile(cos.astype(np.float64), (1, q.shape[1] // d))
    s = np.tile(sin.astype(np.float64), (1, q.shape[1] // d))
    q64 = q.astype(np.float64)
    out_q = q64 * c + _rotate(q64, d, rotary_coeff) * s
    ck = np.tile(cos.astype(np.float64), (1, k.shape[1] // d))
    sk = np.tile(sin.astype(np.float64), (1, k.shape[1] // d))
    k64 = k.astype(np.float64)
    out_k = k64 * ck + _rotate(k64, d, rotary_coeff) * sk
    return out_q.astype(q.dtype), out_k.astype(k.dtype)
