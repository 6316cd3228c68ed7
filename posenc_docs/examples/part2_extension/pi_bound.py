"""Page 07: PI's bound constant and the real ratio of the two bounds."""

import numpy as np

from posenc_docs.pages.part2_extension import (
    bound_ratio,
    extrapolation_sum,
    pi_bound_constant,
)

d, base = 128, 10000.0  # LLaMA 7B head dim, as in the PI paper
print(f"32 ln(10000)     = {pi_bound_constant(base):.2f}")
print(f"2 x 32 ln(10000) = {2 * pi_bound_constant(base):.1f}   <- the '600x'")
for s in (10, 100, 1000):
    print(
        f"s = {s:>4}: B(s)/d = {extrapolation_sum(s, d, base) / d:4.2f}, "
        f"bound ratio = {bound_ratio(s, d, base):,.0f}"
    )
for top in (2048, 8192):
    offsets = np.arange(1, top + 1)
    ratios = np.array([bound_ratio(s, d, base) for s in offsets])
    below = np.count_nonzero(ratios < 2 * pi_bound_constant(base))
    print(
        f"s = 1..{top}: smallest ratio {ratios.min():,.0f} "
        f"(at s = {offsets[ratios.argmin()]}), {below} offsets below 589.5"
    )
