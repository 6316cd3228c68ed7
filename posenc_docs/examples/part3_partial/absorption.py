"""Part III, page 3: why DeepSeek keeps RoPE out of the compressed keys."""

from posenc_docs.pages import models, part3_partial

gaps = part3_partial.mla_absorption_gaps()
print(f"largest |score| in the demonstration: {gaps['largest score']:.1f}")
for case in ("no rope", "rope on the latent keys", "decoupled"):
    verdict = "exact" if gaps[case] < 1e-9 else "WRONG"
    print(f"absorbed W_UK, {case:<24} max |score error| {gaps[case]:9.2e}  {verdict}")

cache = part3_partial.mla_cache_per_token(models.get("DeepSeek-V3"))
print(f"DeepSeek-V3, numbers cached per token and layer: {cache['mla']} (MLA)")
print(
    f"  vs {cache['mha']:,} for full multi-head keys and values, "
    f"{cache['ratio']:.0f} times fewer"
)
