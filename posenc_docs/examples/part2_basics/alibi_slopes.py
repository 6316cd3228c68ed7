"""ALiBi slopes for 8 and 12 heads, as powers of two."""

import numpy as np

from posenc_docs.alibi import alibi_slopes

for n_heads in (8, 12):
    exponents = np.log2(alibi_slopes(n_heads))  # slope m = 2 ** exponent
    print(f"{n_heads:2} heads, log2(m):", exponents.round(2).tolist())
