"""A row-major index makes a patch's lower neighbour far and a row's end near."""

import numpy as np

from posenc_docs.mrope import axial_rope_2d, grid_positions
from posenc_docs.rope import apply_rope

rng = np.random.default_rng(0)
height, width, d = 4, 6, 16
q, k = rng.normal(size=(2, 1, d))  # the same query and key content at every patch
patches = grid_positions(height, width)  # (2, h*w): row, column
index = patches[0] * width + patches[1]  # the row-major position a 1-D model sees
n = height * width
scores = {  # (h*w, h*w): query patch x key patch, position the only difference
    "1-D index": apply_rope(np.repeat(q, n, 0), index, layout="half")
    @ apply_rope(np.repeat(k, n, 0), index, layout="half").T,
    "2-D axial": axial_rope_2d(np.repeat(q, n, 0), patches)
    @ axial_rope_2d(np.repeat(k, n, 0), patches).T,
}
pairs = {  # (row, column) of the query patch and of the key patch
    "right (0,0)-(0,1)": ((0, 0), (0, 1)),
    "wrap  (0,5)-(1,0)": ((0, 5), (1, 0)),
    "below (0,0)-(1,0)": ((0, 0), (1, 0)),
    "below (2,3)-(3,3)": ((2, 3), (3, 3)),
}
print(f"{'':17s}" + "".join(f"{name:>10s}" for name in scores))
for label, (a, b) in pairs.items():
    qa, kb = a[0] * width + a[1], b[0] * width + b[1]
    print(f"{label:17s}" + "".join(f"{s[qa, kb]:10.4f}" for s in scores.values()))
