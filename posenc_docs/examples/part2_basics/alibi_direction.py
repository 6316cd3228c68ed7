"""ALiBi's causal bias versus the symmetric -m|i - j| variant."""

import numpy as np

from posenc_docs.alibi import alibi_bias
from posenc_docs.attention import attention

np.set_printoptions(precision=3, suppress=True)
causal = alibi_bias(8, 5, 5)[0] + 0.0  # head 1 of 8, m = 1/2; + 0.0 drops "-0."
symmetric = alibi_bias(8, 5, 5, causal=False)[0] + 0.0
print("causal (the paper), head 1:")
print(causal)
print("symmetric, head 1:")
print(symmetric)
print("unchanged by reversing the sequence?")
print("  causal:   ", np.array_equal(causal[::-1, ::-1], causal))
print("  symmetric:", np.array_equal(symmetric[::-1, ::-1], symmetric))

rng = np.random.default_rng(3)
d = 8
embedding = {w: rng.normal(size=d) for w in ("dog", "bites", "man")}
w_q, w_k, w_v = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3))


def outputs(words, bias):
    x = np.stack([embedding[w] for w in words])  # (T, d)
    return attention(x @ w_q, x @ w_k, x @ w_v, bias=bias)  # (T, d)


forward, backward = ["dog", "bites", "man"], ["man", "bites", "dog"]
print("largest change of a word's output,")
print("reversed:")
for name in ("symmetric", "causal"):
    bias = alibi_bias(8, 3, 3, causal=name == "causal")[0]  # (3, 3)
    gap = np.abs(outputs(backward, bias)[::-1] - outputs(forward, bias)).max()
    print(f"  {name}: {gap:.1e}")
