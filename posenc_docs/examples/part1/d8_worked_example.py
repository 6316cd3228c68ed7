import numpy as np

from posenc_docs.sinusoidal import encode, table, wavelengths

d = 8
divisors = 10000.0 ** (np.arange(0, d, 2) / d)
print("pair  divisor  wavelength")
for i, divisor in enumerate(divisors):
    print(f"{i:4d}{divisor:9,.0f}{wavelengths(d)[i]:12.4f}")

print("rows 0-2 of the matrix, one column each:")
print(" j" + "".join(f"{f'pos {p}':>8}" for p in range(3)))
for j, entries in enumerate(table(3, d).T):  # (d, 3): entry j of rows 0, 1, 2
    print(f"{j:2d}" + "".join(f"{v:8.4f}" for v in entries))

for a, b in [(7, 8), (30, 31), (7, 9), (30, 32), (7, 7)]:
    print(f"PE({a}) . PE({b}) = {encode(a, d) @ encode(b, d):.4f}")
