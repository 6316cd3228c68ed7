"""The sinusoidal table is fixed: no trainable numbers, unlike a learned table."""

from posenc_docs.learned import LearnedPositionalEmbedding
from posenc_docs.sinusoidal import SinusoidalPositionalEncoding


def trainable(module):
    return sum(p.numel() for p in module.parameters() if p.requires_grad)


sinusoidal = SinusoidalPositionalEncoding(d=768, max_len=1024)
learned = LearnedPositionalEmbedding(max_len=1024, d=768)  # GPT-2 small's shape
print("trainable numbers in a 1,024 x 768 table:")
print(f"  sinusoidal {trainable(sinusoidal):>9,}")
print(f"  learned    {trainable(learned):>9,}")
