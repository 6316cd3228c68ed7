from posenc_docs.pages.pitfalls import layout_mismatch

for d in (64, 128):
    gap = layout_mismatch(d=d)
    wrong, right = gap["unpermuted"], gap["permuted"]
    print(f"head dim {d}: |scores| up to {gap['reference']:.1f}")
    print("read half-split, they are off by")
    print(f"  {wrong:.1f} with the weights as shipped")
    print(f"  {right:.1e} with q/k rows permuted")
