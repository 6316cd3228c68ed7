"""Llama 4's no_rope_layers: a 1 means the layer uses RoPE."""

from posenc_docs.pages.pitfalls import misread_no_rope_layers

layers = misread_no_rope_layers(num_layers=48, interval=4)
print("no_rope_layers[:8] =", layers["flags"][:8])
print(f"NoPE layers as HF reads it  : {len(layers['nope_as_hf'])}")
print(f"  {layers['nope_as_hf']}")
print(f"NoPE layers as the name says: {len(layers['nope_as_named'])}")
print(f"  {layers['nope_as_named'][:12]} ...")
