"""Llama 4's iRoPE with Hugging Face's default config: which layers skip RoPE."""

import numpy as np

from posenc_docs.temperature import llama4_attention_scale, nope_layers

num_layers = 48  # Llama4TextConfig defaults: 48 layers, a NoPE layer every 4th
nope = nope_layers(num_layers, no_rope_layer_interval=4)
print(f"NoPE layers ({len(nope)} of {num_layers}):")
print(" ", nope[:6])  # one line each half, to fit a phone
print(" ", nope[6:])

n = np.array([8_191, 8_192, 65_536, 1_048_576])  # tokens in context
tau = llama4_attention_scale(n - 1, floor_scale=8192, attn_scale=0.1)
print("NoPE queries scaled by, at query position:")
for tokens, t in zip(n, tau, strict=True):
    print(f"{tokens - 1:>11,}: {t:.4f}")
