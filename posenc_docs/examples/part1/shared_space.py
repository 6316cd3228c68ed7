"""How much of an input vector e + PE is position, for two embedding scales."""

import numpy as np

from posenc_docs.pages.part1 import position_share
from posenc_docs.sinusoidal import encode

rng = np.random.default_rng(0)
positions = np.arange(1024)
for d, std, setting in [
    (768, 0.02, "GPT-2-style init N(0, 0.02^2), d = 768"),
    (512, 1.0, "unit-variance entries, d = 512"),
]:
    pe = encode(positions, d)  # (1024, d)
    e = std * rng.standard_normal((positions.size, d))  # one token per position
    share = (pe**2).sum(1) / ((e + pe) ** 2).sum(1)  # (1024,)
    print(setting)
    print(f"  ||PE|| = {np.linalg.norm(pe, axis=1).mean():.2f} = sqrt(d/2)")
    print(f"  ||e||  = {np.linalg.norm(e, axis=1).mean():.2f} on average")
    print("  position's share of ||e + PE||^2")
    print(f"    mean over positions:{'':11}{share.mean():.3f}")
    print(f"    of the means, 1/(1 + 2 std^2): {position_share(std):.3f}")
