"""A learned position table has no row past max_len: the error you meet."""

import torch

from posenc_docs.learned import LearnedPositionalEmbedding, parameter_count

torch.manual_seed(0)
bert_like = LearnedPositionalEmbedding(max_len=512, d=768)  # BERT-base's table
table_size = sum(p.numel() for p in bert_like.parameters())
print(f"parameters: {table_size:,}; parameter_count: {parameter_count(512, 768):,}")

print("512 tokens ->", tuple(bert_like(torch.zeros(1, 512, 768)).shape))
try:
    bert_like(torch.zeros(1, 513, 768))  # token 513 sits at position 512
except IndexError as error:
    print("513 tokens -> IndexError:", error)

# The bare torch table behind it fails the same way, with a terser message.
try:
    torch.nn.Embedding(512, 768)(torch.arange(513))
except IndexError as error:
    print("nn.Embedding(512, 768) at position 512 -> IndexError:", error)
