"""Position at each of the three insertion points makes word order visible."""

import numpy as np

from posenc_docs.alibi import alibi_bias
from posenc_docs.pages.part1 import permutation_gap, random_head, toy_embeddings
from posenc_docs.rope import apply_rope
from posenc_docs.sinusoidal import table

words = ["the", "king", "is", "here"]
T, d = len(words), 16
vocab = toy_embeddings(words, d, seed=0)
x = np.stack([vocab[w] for w in words])  # (T, d)
head = random_head(d, d, seed=0)
perm = [3, 2, 0, 1]  # "here is the king"

signals = {
    "no position signal": {},
    "PE added to x": {"added": table(T, d)},
    "q and k rotated (RoPE)": {"rotate": lambda t: apply_rope(t, np.arange(T))},
    # head 1 of 8, slope 1/2
    "ALiBi bias on the scores": {"bias": alibi_bias(8, T, T, causal=False)[0]},
}
print("max |f(shuffled x) - shuffled f(x)|")
for where, signal in signals.items():
    print(f"  {where:<27}{permutation_gap(x, perm, head, **signal):.1e}")
