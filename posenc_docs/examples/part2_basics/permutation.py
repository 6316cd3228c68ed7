"""Attention without positions cannot tell a sentence from its shuffle."""

import numpy as np

from posenc_docs.attention import self_attention

rng = np.random.default_rng(0)
d = 8
original = ["the", "cat", "sat", "on", "the", "mat"]
order = [5, 0, 3, 2, 1, 4]  # shuffled[t] = original[order[t]]
shuffled = [original[i] for i in order]  # mat the on sat cat the

embedding = {word: rng.normal(size=d) for word in sorted(set(original))}
w_q, w_k, w_v = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3))


def embed(words):
    return np.stack([embedding[w] for w in words])  # (T, d)


def score(words, query, key):
    """Scaled logit of (first) word `query` attending to word `key`."""
    q, k = embed(words) @ w_q, embed(words) @ w_k  # (T, d)
    return q[words.index(query)] @ k[words.index(key)] / np.sqrt(d)


print(" ".join(original), "->", " ".join(shuffled))
print(f"score cat -> sat, original order: {score(original, 'cat', 'sat'):+.6f}")
print(f"score cat -> sat, shuffled order: {score(shuffled, 'cat', 'sat'):+.6f}")

for causal in (False, True):
    out_original = self_attention(embed(original), w_q, w_k, w_v, causal=causal)
    out_shuffled = self_attention(embed(shuffled), w_q, w_k, w_v, causal=causal)
    gap = np.abs(out_shuffled - out_original[order]).max()  # largest of (T, d)
    print(f"causal={causal!s:5}: largest gap to the reordered original: {gap:.1e}")
