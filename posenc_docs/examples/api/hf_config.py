"""API: RoPE from a Hugging Face config's rope_scaling, into RotaryEmbedding."""

import torch

from posenc_docs import rope, scaling

# a config's rope_parameters (rope_scaling before transformers 5), as a dict
params = {"rope_type": "yarn", "rope_theta": 10000.0, "factor": 4.0}
params["original_max_position_embeddings"] = 4096
inv_freq, attention_factor = scaling.from_rope_scaling(
    128,  # the head width
    params["rope_theta"],
    params,
    max_position_embeddings=16384,
)
rotary = rope.RotaryEmbedding(
    128,
    rotary_dim=2 * len(inv_freq),  # less than 128 with partial_rotary_factor
    inv_freq=inv_freq,
    attention_factor=attention_factor,  # goes with inv_freq: never drop it
)  # layout="half", Hugging Face's, by default
q = k = torch.randn(2, 4, 6, 128, generator=torch.Generator().manual_seed(0))
position_ids = torch.arange(6).expand(2, 6)  # (B, T), as Hugging Face passes them
q, k = rotary(q, k, positions=position_ids)  # (B, H, T, head_dim)
print(f"{len(inv_freq)} pairs, attention factor {attention_factor:.4f}")
print("rotated q:", tuple(q.shape))
