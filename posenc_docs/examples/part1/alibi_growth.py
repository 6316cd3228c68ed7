"""ALiBi's penalty -m * distance at 512 and at 50,000 tokens, 8 heads."""

import math

from posenc_docs.alibi import alibi_slopes

print("bias -m (i - j) of keys 512 and 50,000")
print("back, and the distance where it is -10:")
print(f"head  slope{'512':>8}{'50,000':>11}{'-10 at':>10}")
for h, m in enumerate(alibi_slopes(8), start=1):  # heads 1..8, as in the paper
    at_512, at_50k, reach = -m * 512, -m * 50_000, 10 / m
    print(f"{h:>4}  1/{1 / m:<4.0f}{at_512:>7.1f}{at_50k:>11,.1f}{reach:>10,.0f}")
print("a bias of -10 scales a key's attention")
print(f"weight by e^-10 = {math.exp(-10):.1e}")
