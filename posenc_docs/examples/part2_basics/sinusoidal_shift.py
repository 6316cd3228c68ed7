"""PE(pos + k) is a fixed rotation of PE(pos); no per-dimension factor is."""

import numpy as np

from posenc_docs.sinusoidal import encode, shift_matrix, table

d, k = 512, 1
pe = table(1000 + k, d)  # positions 0 .. 1000, shape (1001, d)
M = shift_matrix(k, d)  # (d, d), block diagonal

print("M_1, first pair:", M[:2, :2].round(4).tolist())
print("M_1 is orthogonal:", np.allclose(M.T @ M, np.eye(d)))
worst = np.abs(pe[:1000] @ M.T - pe[k:]).max()
print(f"max |M_1 PE(pos) - PE(pos+1)| over pos 0..999: {worst:.1e}")

# One dimension alone: PE(0)[0] = sin 0 = 0, yet PE(1)[0] = sin 1.
print(f"PE(0)[0] = {encode(0, d)[0]:.4f}, PE(1)[0] = {encode(1, d)[0]:.4f}")
print("so no scalar a_0 gives PE(1)[0] = a_0 * PE(0)[0]")

# Best affine fit PE(pos+1)[0] ~ a * PE(pos)[0] + b over 1,000 positions:
now, later = pe[:1000, 0], pe[k:, 0]
a, b = np.polyfit(now, later, 1)
fit_error = np.abs(a * now + b - later).max()
print(f"best a = {a:.4f}, b = {b:.4f}, worst error {fit_error:.4f}")
