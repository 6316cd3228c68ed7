import torch

from posenc_docs.pages.pitfalls import rope_cos_error

print("largest |cos error|, 64 positions x 64")
print("pairs (d = 128), angles in bf16 or fp32:")
print("    from     bf16     fp32  bf16 table")
for start in (1_000, 8_000, 131_000):
    bf16 = rope_cos_error(start, torch.bfloat16)
    fp32 = rope_cos_error(start, torch.float32)
    table = rope_cos_error(start, torch.float32, cache_dtype=torch.bfloat16)
    print(f"{start:>8,}{bf16:>9.3f}{fp32:>9.1e}{table:>12.1e}")
