"""Page 06: which published model uses which scheme, and the config that says so."""

from posenc_docs.pages import models
from posenc_docs.pages.format import markdown_table
from posenc_docs.pages.part2_extension import extension_method


def evidence(model):
    """The config values that show the model's position scheme."""
    if model.scheme == "sinusoidal":
        return f"fixed sinusoids, base {model.extra['base']}"
    if model.scheme == "learned":
        return f"table of {model.max_position_embeddings:,} positions"
    if model.scheme == "t5-bias":
        return (
            f"{model.extra['relative_attention_num_buckets']} buckets up to "
            f"distance {model.extra['relative_attention_max_distance']}"
        )
    if model.scheme == "alibi":
        return f"ALiBi, {model.num_heads} heads (one slope each)"
    scaled = extension_method(model) or "none"
    if "rope_scaling_from" in model.extra:  # not in the shipped config.json
        scaled += f", added as {model.extra['rope_scaling_from']} says"
    theta = f"rope_theta {model.rope_theta:,.0f}"
    if "local_rope_theta" in model.extra:  # ModernBERT: two kinds of layer
        theta += f" (global layers; local {model.extra['local_rope_theta']:,.0f})"
    layout = {"half": "half-split"}.get(model.rope_layout, model.rope_layout)
    return (
        f"{theta}, rotates {model.rotary_dim} of {model.head_dim} head dims "
        f"in {layout} pairs, scaling: {scaled}"
    )


header = ["Model", "Scheme", "Evidence in the config", "Source"]
rows = [[m.name, m.scheme, evidence(m), m.source] for m in models.MODELS.values()]
print(markdown_table(header, rows, align="---"))
