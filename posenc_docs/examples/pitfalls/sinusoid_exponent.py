import numpy as np

from posenc_docs.pages.pitfalls import (
    EXPONENT_VARIANTS,
    frozen_dimensions,
    offset_similarity_spread,
    sinusoid_exponents,
)

print("exponents e_j at d = 8: dimension j turns")
print("at 10000^-e_j")
print(" j" + "".join(f"{variant:>11}" for variant in EXPONENT_VARIANTS))
table = np.stack([sinusoid_exponents(8, v) for v in EXPONENT_VARIANTS], axis=1)
for j, row in enumerate(table):  # (8, 3): one column per variant
    print(f"{j:2d}" + "".join(f"{e:11.3f}" for e in row))

print("\nd = 512: spread of PE(p).PE(p+1) over")
print("p < 2048, and dimensions turning less")
print("than 1 degree over 4,096 positions")
print("(of 512):")
for variant in EXPONENT_VARIANTS:
    spread = offset_similarity_spread(1, 512, variant)
    frozen = frozen_dimensions(512, variant, length=4096)
    print(f"{variant:>9}: spread {spread:6.3f}, frozen {frozen:3d}")
