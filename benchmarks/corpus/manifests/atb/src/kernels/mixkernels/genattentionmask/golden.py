import numpy as np


def genattentionmask(attention_mask, head_num=1, q_seq_len=(1,)):
    """Unpad an attention mask: attention_mask is batch x max_s x max_s (float16); for each sample b the top-left
    s_b x s_b block is written head_num times, all samples concatenated into one 1-D tensor."""
    b = attention_mask.shape[0]
    m = attention_mask.reshape(b, attention_mask.shape[-2], attention_mask.shape[-1])
    parts = []
    for i, s in enumerate(q_seq_len):
        block = m[i, : int(s), : int(s)]
        parts.append(np.tile(block.reshape(1, -1), (int(head_num), 1)).reshape(-1))
    return np.concatenate(parts).astype(attention_mask.dtype)
