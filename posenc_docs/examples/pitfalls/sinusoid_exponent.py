import numpy as np

from posenc_docs.pages.pitfalls import (
    EXPONENT_VARIANTS,
    frozen_dimensions,
    offset_similarity_spread,
    sinusoid_exponents,
)

np.set_printoptions(precision=3, suppress=True)
print("exponents e_j at d = 8 (dimension j turns at 10000^-e_j):")
for variant in EXPONENT_VARIANTS:
    print(f"{variant:>9}: {sinusoid_exponents(8, variant)}")

print("\nd = 512: spread of PE(p).PE(p+1) over p < 2048, and")
print("dimensions turning < 1 degree over 4,096 positions")
for variant in EXPONENT_VARIANTS:
    spread = offset_similarity_spread(1, 512, variant)
    frozen = frozen_dimensions(512, variant, length=4096)
    print(f"{variant:>9}: spread {spread:7.3f}, frozen {frozen:3d} of 512")
