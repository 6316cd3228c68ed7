"""The lab's language: a sample, its entropy floor, and a check by sampling."""

import math

import numpy as np

from posenc_docs.lab import data
from posenc_docs.lab.config import FULL

c = FULL["perplexity"]  # the language both experiments use

table = data.transition_table(c.vocab, c.order, c.concentration, seed=0)
print("table shape (previous-but-one, previous, next):", table.shape)
print("first 20 tokens of a sample:", data.sample(table, 1, 20, seed=1)[0])

rate = data.entropy_rate(table)
print(f"entropy rate H        = {rate:.4f} nats, perplexity {math.exp(rate):.3f}")
print(f"uniform guess ln(V)   = {math.log(c.vocab):.4f} nats, perplexity {c.vocab}")

# Check H by sampling: average surprise of the true table on 100,000 tokens
x = data.sample(table, 100, 1002, seed=2)
surprise = -np.log(table[x[:, :-2], x[:, 1:-1], x[:, 2:]])  # (100, 1000)
print(
    f"sampled estimate      = {surprise.mean():.4f} nats "
    f"(+/- {surprise.std() / math.sqrt(surprise.size):.4f})"
)

for multiple in c.eval_multiples:
    n = multiple * c.train_len
    floor = data.window_floor(table, n)
    print(
        f"best mean loss, {n:>4} predictions from scratch: {floor:.4f} nats, "
        f"perplexity {math.exp(floor):.4f}"
    )
