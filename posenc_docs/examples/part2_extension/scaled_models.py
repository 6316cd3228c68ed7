"""Page 07: what each published rope_scaling block does to its model's pairs."""

from posenc_docs import scaling
from posenc_docs.pages import models
from posenc_docs.pages.part2_extension import (
    band_counts,
    context_ceiling,
    model_scale_factors,
)

for kind in ("linear", "yarn", "longrope", "llama3"):
    for model in models.by_rope_type(kind):
        ceiling = context_ceiling(model)
        long = model.max_position_embeddings  # LongRoPE: use its long list
        factors = model_scale_factors(model, seq_len=long)
        kept, between, full, outside = band_counts(factors, ceiling.factor)
        print(
            f"{model.name} [{kind}] s = {ceiling.factor:g}, L0 = {ceiling.original:,}"
        )
        print(
            f"  {len(factors)} pairs: {kept} unchanged, {between} in between, "
            f"{full} divided by s, {outside} outside [1, s]; largest slow-down "
            f"{factors.max():.2f}"
        )
        if kind == "yarn":
            params = dict(model.rope_scaling)
            low, high = scaling.yarn_ramp_bounds(
                model.rotary_dim,
                model.rope_theta,
                original_max_position_embeddings=params[
                    "original_max_position_embeddings"
                ],
                beta_fast=params.get("beta_fast", 32.0),
                beta_slow=params.get("beta_slow", 1.0),
            )
            g = scaling.yarn_mscale(ceiling.factor)
            print(
                f"  ramp from pair {low} to pair {high}; 0.1 ln s + 1 = {g:.4f}, "
                f"logits x {g**2:.4f}"
            )
