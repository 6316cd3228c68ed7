import numpy as np

from posenc_docs.sinusoidal import encode, table, wavelengths

d = 8
np.set_printoptions(precision=4, suppress=True)

print("divisors    ", 10000.0 ** (np.arange(0, d, 2) / d))
print("wavelengths ", wavelengths(d))
print("rows 0-2:")
print(table(3, d))

for a, b in [(7, 8), (30, 31), (7, 9), (30, 32), (7, 7)]:
    print(f"PE({a}) . PE({b}) = {encode(a, d) @ encode(b, d):.4f}")
