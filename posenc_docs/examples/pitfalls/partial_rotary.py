from posenc_docs.pages.pitfalls import partial_rotary_mismatch

for d, r, name in ((96, 24, "GPT-NeoX-20B"), (80, 32, "Phi-2")):
    gap = partial_rotary_mismatch(d=d, rotary_dim=r)
    full, width = gap["full"], gap["head_width_freq"]
    print(f"{name} head, {r} of {d} dims rotated:")
    print(f"  largest |logit|{'':20}{gap['reference']:.1f}")
    print("  max |diff| of the logits with")
    print(f"  full RoPE over all {d} dims:{'':8}{full:.1f}")
    print(f"  first {r}, frequencies of width {d}: {width:.1f}")
