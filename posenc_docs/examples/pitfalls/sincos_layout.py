from posenc_docs.pages.pitfalls import concatenated_encoding, layout_equivalence
from posenc_docs.sinusoidal import encode

print("PE(1), d = 8:")
print(" j  interleaved  concatenated")
for j, (a, b) in enumerate(zip(encode(1, 8), concatenated_encoding(1, 8), strict=True)):
    print(f"{j:2d}{a:13.3f}{b:14.3f}")

gap = layout_equivalence(d=64)
print(f"\nvectors, after the permutation:  {gap['vectors']:.1e}")
print(f"all dot products PE(p) . PE(q):  {gap['dot_products']:.1e}")
print(f"output of the first linear layer: {gap['first_layer']:.1e}")
