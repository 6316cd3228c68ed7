"""Every number the source article prints for d = 8, recomputed."""

import numpy as np

from posenc_docs.sinusoidal import encode, wavelengths

d = 8
pe = {pos: encode(pos, d) for pos in (1, 2, 7, 8, 9, 30, 31, 32)}
checks = [  # (what, value the article prints, decimals it prints, recomputed)
    ("wavelength 0", 6.3, 1, wavelengths(d)[0]),
    ("wavelength 1", 63, 0, wavelengths(d)[1]),
    ("wavelength 2", 628, 0, wavelengths(d)[2]),
    ("wavelength 3", 6283, 0, wavelengths(d)[3]),
    ("sin 1, PE(1)[0]", 0.8415, 4, pe[1][0]),
    ("sin 2, PE(2)[0]", 0.9093, 4, pe[2][0]),
    ("cos 1, PE(1)[1]", 0.5403, 4, pe[1][1]),
    ("cos 2, PE(2)[1]", -0.4161, 4, pe[2][1]),
    ("PE(7) . PE(8)", 3.5353, 4, pe[7] @ pe[8]),
    ("PE(30) . PE(31)", 3.5353, 4, pe[30] @ pe[31]),
    ("PE(7) . PE(9)", 2.5637, 4, pe[7] @ pe[9]),
    ("PE(30) . PE(32)", 2.5637, 4, pe[30] @ pe[32]),
    ("PE(7) . PE(7)", 4.0, 1, encode(7, d) @ encode(7, d)),
]
print(f"{'':23}{'article':>8}{'computed':>12}")
for what, printed, places, value in checks:
    verdict = "agrees" if round(value, places) == printed else "DIFFERS"
    print(f"{verdict:<8}{what:<15}{printed:>8}{value:>12.6f}")

article_row = [0.8415, 0.5403, 0.0998, 0.995, 0.01, 1.0, 0.001, 1.0]
row = np.round(pe[1], 4).tolist()
print("agrees " if row == article_row else "DIFFERS", "np.round(PE(1), 4) =")
print(f"{'':8}{row[:4]}\n{'':8}{row[4:]}")
