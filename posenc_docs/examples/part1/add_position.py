"""The input to attention: token embedding + position vector, entry by entry."""

import numpy as np

from posenc_docs.pages.part1 import toy_embeddings
from posenc_docs.sinusoidal import encode

d = 8
king = toy_embeddings(["the", "king", "is", "here"], d, seed=0)["king"]

np.set_printoptions(precision=3, suppress=True, sign=" ")
for sentence in ("the king is here", "here is the king"):
    pos = sentence.split().index("king")
    print(f"{sentence!r}: 'king' sits at position {pos}")
    print("  embedding      ", king)
    print(f"  + PE({pos})        ", encode(pos, d))
    print("  = input vector ", king + encode(pos, d))
