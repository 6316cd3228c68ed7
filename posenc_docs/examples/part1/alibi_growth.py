"""ALiBi's penalty -m * distance at 512 and at 50,000 tokens, 8 heads."""

import math

from posenc_docs.alibi import alibi_slopes

print("head  slope     bias at 512  bias at 50,000  -10 at distance")
for h, m in enumerate(alibi_slopes(8), start=1):  # heads 1..8, as in the paper
    at_512, at_50k, reach = -m * 512, -m * 50_000, 10 / m
    print(f"{h:>4}  1/{1 / m:<6.0f} {at_512:>12.1f} {at_50k:>15,.1f} {reach:>12,.0f}")
print(f"a bias of -10 scales a key's attention weight by e^-10 = {math.exp(-10):.1e}")
