"""Part III, page 3: why DeepSeek keeps RoPE out of the compressed keys."""

from posenc_docs.pages import models, part3_partial

gaps = part3_partial.mla_absorption_gaps()
print(f"largest |score| in the demonstration: {gaps['largest score']:.1f}")
print("max |score error| with W_UK absorbed:")
for case in ("no rope", "rope on the latent keys", "decoupled"):
    verdict = "exact" if gaps[case] < 1e-9 else "WRONG"
    print(f"  {case:<24} {gaps[case]:.2e}  {verdict}")

cache = part3_partial.mla_cache_per_token(models.get("DeepSeek-V3"))
print("DeepSeek-V3, cached per token and layer:")
print(f"  MLA: {cache['mla']}")
print(f"  full keys and values: {cache['mha']:,}")
print(f"  {cache['ratio']:.0f} times fewer")
