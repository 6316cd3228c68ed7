"""Numbers behind Part III, page 3: partial rotary and DeepSeek's decoupled RoPE.

Functions take a ``models.ModelConfig`` or plain numbers and return numbers or a
Markdown table; the MLA demonstration builds random weights with a fixed seed.
"""

# --8<-- [start:setup]
import numpy as np

from posenc_docs import rope
from posenc_docs.pages.format import markdown_table
from posenc_docs.pages.models import ModelConfig, get

# --8<-- [end:setup]

PARTIAL_MODELS = ("GPT-J-6B", "GPT-NeoX-20B", "Phi-2", "DeepSeek-V3", "Llama-2-7B")
_FIELD = {
    "GPT-J-6B": "rotary_dim",
    "GPT-NeoX-20B": "rotary_pct",
    "Phi-2": "partial_rotary_factor",
    "DeepSeek-V3": "qk_rope_head_dim",
}


def partial_table(names=PARTIAL_MODELS) -> str:
    """One row per model: rotated of q.k dims per head, the config field, pairs."""
    rows = []
    for name in names:
        model = get(name)
        field = _FIELD.get(name)
        value = model.extra.get(field, model.rotary_dim) if field else None
        rows.append(
            (name, f"{model.rotary_dim} of {model.head_dim}",
             f"`{field}` {value}" if field else "(none: all)", model.rope_layout)
        )  # fmt: skip
    return markdown_table(("model", "rotated", "config field", "pair layout"), rows)


# --8<-- [start:mla_absorption_gaps]
def mla_absorption_gaps(d_latent=64, d_nope=32, d_rope=16, n_keys=40, seed=0):
    # --8<-- [end:mla_absorption_gaps]
    """Max |score error| of the absorbed form of MLA attention, three ways.

    Returns
    -------
    dict
        ``"no rope"``: keys ``W_UK c_j``, query absorbed as ``W_UK^T q``.
        ``"rope on the latent keys"``: keys ``R_j W_UK c_j``; absorbing
        ``W_UK^T R_i q`` instead, as if the rotation could be moved across.
        ``"decoupled"``: DeepSeek's split, position-free ``W_UK c_j`` plus a
        separate rotated key ``R_j k_pe_j``; absorbed exactly.
        ``"largest score"``: largest |score| of the rotated keys, for scale.

    Notes
    -----
    ``(R_i q)^T R_j W_UK c_j = q^T R_(j-i) W_UK c_j``: the matrix between q and
    c_j changes with j - i, so no single matrix can be folded into the query.
    """
    # --8<-- [start:mla_absorption_gaps-body]
    rng = np.random.default_rng(seed)
    w_uk = rng.standard_normal((d_nope, d_latent))  # up-projection of the keys
    latents = rng.standard_normal((n_keys, d_latent))  # c_j: what the cache holds
    q, k_pe = rng.standard_normal(d_nope), rng.standard_normal((n_keys, d_rope))
    q_pe, i, positions = rng.standard_normal(d_rope), n_keys - 1, np.arange(n_keys)
    keys = latents @ w_uk.T  # (n_keys, d_nope), W_UK c_j
    rotated_keys = rope.apply_rope(keys, positions)  # R_j W_UK c_j
    q_i = rope.apply_rope(q[None], [i])[0]  # R_i q
    rope_part = rope.apply_rope(k_pe, positions) @ rope.apply_rope(q_pe[None], [i])[0]
    return {
        "largest score": np.abs(rotated_keys @ q_i).max(),
        "no rope": np.abs(keys @ q - latents @ (w_uk.T @ q)).max(),
        "rope on the latent keys": np.abs(
            rotated_keys @ q_i - latents @ (w_uk.T @ q_i)
        ).max(),
        "decoupled": np.abs(
            (keys @ q + rope_part) - (latents @ (w_uk.T @ q) + rope_part)
        ).max(),
    }


# --8<-- [end:mla_absorption_gaps-body]


# --8<-- [start:mla_cache]
def mla_cache_per_token(model: ModelConfig) -> dict:
    """Numbers cached per token and layer: MLA's latent + rope key vs full MHA."""
    extra = model.extra
    mla = extra["kv_lora_rank"] + extra["qk_rope_head_dim"]  # c_j and k_pe_j
    mha = model.num_heads * (model.head_dim + extra["v_head_dim"])  # every k and v
    return {"mla": mla, "mha": mha, "ratio": mha / mla}


# --8<-- [end:mla_cache]
