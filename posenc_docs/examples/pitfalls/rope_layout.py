from posenc_docs.pages.pitfalls import layout_mismatch

for d in (64, 128):
    gap = layout_mismatch(d=d)
    wrong, right = gap["unpermuted"], gap["permuted"]
    print(f"head dim {d}: largest |score| as trained {gap['reference']:.1f}")
    print(f"  half-split, weights as shipped: max |diff| {wrong:.1f}")
    print(f"  half-split, q/k rows permuted:  max |diff| {right:.1e}")
