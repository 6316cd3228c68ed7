"""The input to attention: token embedding + position vector, entry by entry."""

from posenc_docs.pages.part1 import toy_embeddings
from posenc_docs.sinusoidal import encode

d = 8
king = toy_embeddings(["the", "king", "is", "here"], d, seed=0)["king"]

positions = []
for sentence in ("the king is here", "here is the king"):
    pos = sentence.split().index("king")
    print(f"'king' in {sentence!r}: position {pos}")
    positions.append(pos)

a, b = positions  # one embedding row for 'king', two position vectors
print(f"j  embedding  PE({a}) input{a}  PE({b}) input{b}")
for j in range(d):
    pe_a, pe_b = encode(a, d)[j], encode(b, d)[j]
    row = [pe_a, king[j] + pe_a, pe_b, king[j] + pe_b]
    print(f"{j}{king[j]:11.3f}" + "".join(f"{v:7.3f}" for v in row))
