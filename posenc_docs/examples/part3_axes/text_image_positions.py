"""M-RoPE positions for text, a 2 x 3 image and more text; text stays 1-D RoPE."""

import numpy as np

from posenc_docs.mrope import apply_mrope, text_image_positions
from posenc_docs.rope import apply_rope

thw = text_image_positions(n_before=2, height=2, width=3, n_after=2)  # (3, 10)
for axis, row in zip(("t", "h", "w"), thw, strict=True):
    print(axis, row.tolist())

rng = np.random.default_rng(1)
x = rng.normal(size=(10, 128))  # one head of Qwen2-VL width, 10 tokens
rotated = apply_mrope(x, thw, mrope_section=(16, 24, 24), base=1e6)
text = [0, 1, 8, 9]  # the text tokens: t = h = w
plain = apply_rope(x[text], thw[0, text], base=1e6, layout="half")
print(
    "text tokens vs 1-D RoPE: max |diff| =",
    f"{np.abs(rotated[text] - plain).max():.1e}",
)
