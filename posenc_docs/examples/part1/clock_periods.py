"""How many positions each sin/cos pair needs to turn once, at d = 512."""

import numpy as np

from posenc_docs.sinusoidal import wavelengths

d, base = 512, 10000.0
periods = wavelengths(d, base)  # (256,) = 2 pi base^(2i/d)
print(f"pairs: {periods.size}")
print("positions per turn:")
print(f"pair 0 (fastest):   {periods[0]:10,.2f}")
print(f"pair 1:             {periods[1]:10,.2f}")
print(f"pair 255 (slowest): {periods[-1]:10,.0f}")
print(f"2 pi base^(510/512): {2 * np.pi * base ** (510 / 512):9,.0f}")
print(f"2 pi base (no pair): {2 * np.pi * base:9,.0f}")
print("pairs that do not finish one turn")
for length in (512, 2048):
    unfinished = int((periods > length).sum())
    print(f"  in {length:>5,} positions: {unfinished}")
