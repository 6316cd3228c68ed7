"""Reorder the words: without positions, each word's output does not change."""

import numpy as np

from posenc_docs.attention import self_attention
from posenc_docs.pages.part1 import random_head, toy_embeddings
from posenc_docs.sinusoidal import table

first = ["the", "king", "is", "here"]
second = ["here", "is", "the", "king"]
d = 16
vocab = toy_embeddings(first, d, seed=0)  # one fixed random vector per word
w_q, w_k, w_v = random_head(d, d, seed=0)  # one attention head, random weights


def outputs(words, *, positions, causal=False):
    x = np.stack([vocab[w] for w in words])  # (T, d)
    if positions:
        # slot t gets PE(t), whatever word sits there
        x = x + table(len(words), d)
    out = self_attention(x, w_q, w_k, w_v, causal=causal)  # (T, d)
    return dict(zip(words, out, strict=True))  # word -> its output vector


np.set_printoptions(precision=3, suppress=True, sign=" ")
for label, options in [
    ("no positions", {"positions": False}),
    ("sinusoidal positions added", {"positions": True}),
    ("no positions, causal mask", {"positions": False, "causal": True}),
]:
    a, b = outputs(first, **options), outputs(second, **options)
    gap = max(np.abs(a[w] - b[w]).max() for w in first)
    print(f"{label}:")
    print(f"  largest difference, any word: {gap:.3g}")
    print("  'king', first entries, in")
    print(f"  'the king is here' {a['king'][:3]}")
    print(f"  'here is the king' {b['king'][:3]}\n")
