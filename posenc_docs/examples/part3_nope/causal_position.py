"""No positional encoding, and still a position: the causal mask counts tokens."""

import numpy as np

from posenc_docs.attention import attention

T = 8
q = k = np.zeros((T, 4))  # equal logits: attention is a plain average
v = np.zeros((T, 1))
v[0] = 1.0  # only the first token (say, BOS) carries a 1
out = attention(q, k, v, causal=True)[:, 0]  # query i averages tokens 0..i
print("output at each query:", np.round(out, 4).tolist())
print("1 / output - 1       :", np.round(1 / out - 1, 6).tolist())
