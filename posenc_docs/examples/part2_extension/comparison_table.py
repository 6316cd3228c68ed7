"""Page 06: the head-to-head table, printed as Markdown from the model configs."""

from posenc_docs.pages import models, part2_extension, part3_relative
from posenc_docs.pages.format import markdown_table

llama2, mpt, t5 = (
    models.get("Llama-2-7B"),
    models.get("MPT-7B"),
    models.get("T5 v1.1 base"),
)
gpt2, bert = models.get("GPT-2 (124M)"), models.get("BERT-base")
base = models.get("Transformer (base)")


def share(model, seq_len):
    """Extra arithmetic per token and layer, as a share of that layer's QK^T."""
    ops = part2_extension.position_ops_per_token(model, seq_len)
    share = ops / part2_extension.score_ops_per_token(model, seq_len)
    return f"{ops:,} ({share:.2%} of QKᵀ)"


census = part2_extension.turn_census(llama2.rotary_dim, llama2.rope_theta, 4096)
never = census.n_pairs - census.full_turn
buckets = t5.extra["relative_attention_num_buckets"]
edges = part3_relative.bucket_edges(
    num_buckets=buckets, max_distance=t5.extra["relative_attention_max_distance"]
)
shared = edges[-1][1]  # nearest distance of the last (shared) bucket
mechanics = [
    (
        "Scheme",
        "Acts on",
        "Learned parameters",
        "Relative position",
        "Past the training length",
    ),
    (
        "Sinusoidal",
        "input embeddings, once",
        "0",
        "only via a linear map the model must learn",
        "defined, but never seen in training",
    ),
    (
        "Learned absolute",
        "input embeddings, once",
        f"GPT-2: {gpt2.max_position_embeddings:,} × {gpt2.hidden_size} = "
        f"{part2_extension.position_parameters(gpt2):,}",
        "none built in",
        "no row to look up: hard stop",
    ),
    (
        "RoPE",
        "q and k, every layer",
        "0",
        "exact: q·k sees positions only as m − n",
        f"new angles for the slow pairs ({never} of {census.n_pairs} in Llama 2 7B)",
    ),
    (
        "ALiBi",
        "attention scores, every layer",
        "0",
        "exact, content-free: −slope·(m − n)",
        "the same straight line, further out",
    ),
    (
        "T5 bias",
        "attention scores, every layer",
        f"2 × {buckets} buckets × {t5.num_heads} heads = "
        f"{part2_extension.position_parameters(t5):,}",
        f"exact below {buckets // 4} (encoder), then log-spaced buckets",
        f"every distance ≥ {shared} shares one bias (encoder)",
    ),
]
costs = [
    ("Scheme", "Extra arithmetic per token", "Used by (config values)"),
    ("Sinusoidal", f"{part2_extension.position_ops_per_token(base, 512):,} adds, once",
     f"Transformer base (d_model {base.hidden_size}, base {base.extra['base']})"),
    ("Learned absolute",
     f"{part2_extension.position_ops_per_token(gpt2, 1024):,} adds, once (GPT-2)",
     f"GPT-2 (n_positions {gpt2.max_position_embeddings}), "
     f"BERT-base (max_position_embeddings {bert.max_position_embeddings})"),
    ("RoPE", f"Llama 2 7B at 4,096: {share(llama2, 4096)} per layer",
     f"Llama 2 7B (rope_theta {llama2.rope_theta:g}), GPT-NeoX-20B (rotary_pct "
     f"{models.get('GPT-NeoX-20B').extra['rotary_pct']}), GPT-J-6B (rotary_dim "
     f"{models.get('GPT-J-6B').rotary_dim}), Llama 3.1 (rope_theta "
     f"{models.get('Llama-3.1-8B').rope_theta:g})"),
    ("ALiBi", f"MPT-7B at {mpt.max_position_embeddings:,}: "
     f"{share(mpt, mpt.max_position_embeddings)} per layer",
     f"BLOOM ({models.get('BLOOM (176B)').num_heads} heads, one slope each), "
     f"MPT-7B (alibi_bias_max {mpt.extra['alibi_bias_max']})"),
    ("T5 bias", f"T5 at 512: {share(t5, 512)} per layer",
     f"T5 v1.1 base (relative_attention_num_buckets {buckets})"),
]  # fmt: skip


for header, *rows in (mechanics, costs):
    print(markdown_table(header, rows, align="---"), end="\n\n")
