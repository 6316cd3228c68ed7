from posenc_docs.pages.pitfalls import dynamic_ntk_cache_gap

print("dynamic NTK, factor 4, head dim 64,")
print("trained on 256 tokens; last query, keys")
print("cached after RoPE vs re-rotated:")
print(f"{'length':>6} {'max |logit diff|':>17} {'weight moved':>13}")
for total in (256, 512, 1024):
    gap = dynamic_ntk_cache_gap(original_len=256, total=total)
    print(f"{total:>6} {gap['logits']:>17.2f} {gap['weights']:>13.0%}")
