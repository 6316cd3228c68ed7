"""Pair index i versus dimension index j in the exponent, at d = 8."""

from functools import partial

import numpy as np

from posenc_docs.pages.pitfalls import sinusoid_table
from posenc_docs.sinusoidal import encode

d = 8
dims = np.arange(d)
pair = dims // 2  # dimensions 2i and 2i+1 belong to pair i
print(" j  i = j//2  right: 2i/d  wrong: 2j/d")
for j in dims:
    print(f"{j:2d}{pair[j]:10d}{2 * pair[j] / d:13.2f}{2 * j / d:13.2f}")
print("\nPE(a) . PE(a + 1) for a = 7 and a = 30:")
wrong = partial(sinusoid_table, variant="doubled")  # exponent 2j/d, j the dimension
for name, pe in [("right", encode), ("wrong", wrong)]:
    near, far = pe(7, d) @ pe(8, d), pe(30, d) @ pe(31, d)
    print(f"  {name}: {near:.4f} and {far:.4f}")
