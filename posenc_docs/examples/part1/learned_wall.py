"""A GPT-2-sized position table (1,024 x 768) asked for position 1,024."""

import torch

from posenc_docs.learned import LearnedPositionalEmbedding

table = torch.nn.Embedding(1024, 768)  # rows for positions 0 .. 1023
print("last row that exists:", table(torch.tensor([1023])).shape)
try:
    table(torch.tensor([1024]))  # the 1,025th token
except IndexError as error:
    print("torch.nn.Embedding:", type(error).__name__, "-", error)

ours = LearnedPositionalEmbedding(max_len=1024, d=768)
tokens = torch.zeros(1, 1025, 768)  # one sequence of 1,025 token vectors
try:
    ours(tokens)
except IndexError as error:
    print("posenc_docs:", type(error).__name__, "-", error)
