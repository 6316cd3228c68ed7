"""Moving k positions is one fixed rotation; no per-dimension rule does it."""

import numpy as np

from posenc_docs.pages.part1 import per_dimension_fit_residual
from posenc_docs.sinusoidal import encode, shift_matrix

d, k = 64, 3
starts = np.arange(0, 10_000, 7)  # 1,429 starting positions
M = shift_matrix(k, d)  # (d, d), built without looking at any position
error = np.abs(encode(starts, d) @ M.T - encode(starts + k, d)).max()
print(f"max |M_{k} PE(pos) - PE(pos+{k})| over {starts.size:,} positions: {error:.1e}")

sims = np.einsum("nd,nd->n", encode(starts, d), encode(starts + k, d))  # (n,)
spread = np.ptp(sims)
print(f"PE(pos) . PE(pos+{k}) varies by {spread:.1e} across those positions")

best = per_dimension_fit_residual(k, d)
print(f"best per-dimension a*x + b, worst error: {best:.3f}  (values lie in [-1, 1])")
