"""After RoPE, a query-key score depends on m - n only."""

import numpy as np

from posenc_docs.rope import apply_rope, apply_rope_complex, rotation_matrix

rng = np.random.default_rng(1)
d = 64
q, k = rng.normal(size=(2, d))  # one query and one key vector


def rotated_score(m, n):
    q_m = apply_rope(q[None], [m])[0]  # rotate q as a token at position m
    k_n = apply_rope(k[None], [n])[0]  # rotate k as a token at position n
    return q_m @ k_n


print(f"no rotation: q . k = {q @ k:+.10f}")
print("     m       n  q_m . k_n")
for m, n in [(5, 2), (105, 102), (10_005, 10_002), (5, 3)]:
    print(f"{m:>6}{n:>8}  {rotated_score(m, n):+.10f}")

# Why: R_m^T R_n is the single rotation R_(n-m).
R = rotation_matrix  # (d, d), interleaved layout
gap = np.abs(R(5, d).T @ R(2, d) - R(-3, d)).max()
print(f"max |R_5^T R_2 - R_-3| = {gap:.1e}")

# Meta's complex form rotates exactly the same way.
x, positions = rng.normal(size=(6, d)), np.arange(6)  # (T, d), (T,)
same = np.abs(apply_rope_complex(x, positions) - apply_rope(x, positions)).max()
print(f"complex form vs real form: max diff {same:.1e}")
