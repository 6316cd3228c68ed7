import numpy as np

from posenc_docs.pages.pitfalls import concatenated_encoding, layout_equivalence
from posenc_docs.sinusoidal import encode

np.set_printoptions(precision=3, suppress=True)
print("interleaved  PE(1):", encode(1, 8))
print("concatenated PE(1):", concatenated_encoding(1, 8))

gap = layout_equivalence(d=64)
print(f"\nvectors, after the permutation:  {gap['vectors']:.1e}")
print(f"all dot products PE(p) . PE(q):  {gap['dot_products']:.1e}")
print(f"output of the first linear layer: {gap['first_layer']:.1e}")
