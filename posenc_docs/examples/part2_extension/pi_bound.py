"""Page 07: PI's bound constant and the real ratio of the two bounds."""

import numpy as np

from posenc_docs.pages.part2_extension import (
    bound_ratio,
    paper_bound_ratio,
    pi_bound_constant,
)

d, base = 128, 10000.0  # LLaMA 7B head dim, as in the PI paper
claimed = paper_bound_ratio(base)  # the ratio if B = d
print(f"32 ln(10000)     = {pi_bound_constant(base):.2f}")
print(f"2 x 32 ln(10000) = {claimed:.1f}   <- the '600x'")
for offset in (10, 100, 1000):
    ratio = bound_ratio(offset, d, base)  # = 2 x 32 ln(10000) x B/d
    print(f"offset {offset:>4}: B/d = {ratio / claimed:4.2f}, ratio = {ratio:,.0f}")
for top in (2048, 8192):
    offsets = np.arange(1, top + 1)
    ratios = bound_ratio(offsets, d, base)  # one per offset
    below = offsets[ratios < claimed]
    least = ratios.argmin()
    print(f"offsets 1..{top}: least ratio {ratios[least]:,.0f} (at {offsets[least]})")
    first = f", first at offset {below[0]:,}" if below.size else ""
    print(f"  {below.size} below {claimed:.1f}{first}")
