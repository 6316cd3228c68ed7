import numpy as np

from posenc_docs.alibi import alibi_slopes
from posenc_docs.pages.pitfalls import alibi_slope_gap, prose_alibi_slopes

np.set_printoptions(precision=2, linewidth=42)  # a phone's width
print("slope of head k = 2^-x; x for each head:")
for n in (8, 6, 12):
    gap = alibi_slope_gap(n)
    prose, code = -np.log2(prose_alibi_slopes(n)), -np.log2(alibi_slopes(n))
    print(f"\n{n} heads, 2^(-8k/n):\n  " + np.array2string(prose, prefix="  "))
    print(f"{n} heads, reference code:\n  " + np.array2string(code, prefix="  "))
    ratio = gap["max_ratio"]
    print(f"heads that differ: {gap['heads_off']}, worst ratio {ratio:.1f}")
