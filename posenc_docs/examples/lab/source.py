"""The lab's language: a sample, its entropy floor, and a check by sampling."""

import math

import numpy as np

from posenc_docs.lab import data
from posenc_docs.lab.config import FULL

c = FULL["perplexity"]  # the language both experiments use

table = data.transition_table(c.vocab, c.order, c.concentration, seed=0)
print("table shape:", table.shape)
print("  axes: previous-but-one, previous, next")
print("first 12 tokens of a sample:")
print(" ", data.sample(table, 1, 12, seed=1)[0])

# Check H by sampling: average surprise of the true table on 100,000 tokens
x = data.sample(table, 100, 1002, seed=2)
surprise = -np.log(table[x[:, :-2], x[:, 1:-1], x[:, 2:]])  # (100, 1000)
spread = surprise.std() / math.sqrt(surprise.size)

rate = data.entropy_rate(table)
print(f"{'':18s}{'nats':8s}perplexity")
print(f"{'entropy rate H':18s}{rate:<8.4f}{math.exp(rate):.3f}")
print(f"{'uniform ln(V)':18s}{math.log(c.vocab):<8.4f}{c.vocab}")
print(f"{'sampled estimate':18s}{surprise.mean():<8.4f}{math.exp(surprise.mean()):.3f}")
print(f"  (+/- {spread:.4f} nats)")

print("best mean loss, T predictions from scratch")
print(f"{'T':>6s}  {'nats':8s}perplexity")
for multiple in c.eval_multiples:
    n = multiple * c.train_len
    floor = data.window_floor(table, n)
    print(f"{n:>6}  {floor:<8.4f}{math.exp(floor):.4f}")
