"""Part III, page 2: a raised base as NTK-aware scaling, and the cosine-sum bound."""

from posenc_docs.pages import models, part2_extension, part3_base

llama2, code = models.get("Llama-2-7B"), models.get("CodeLlama-7B")
d, L = code.rotary_dim, code.max_position_embeddings
for base in (llama2.rope_theta, code.rope_theta):
    c = part2_extension.turn_census(d, base, L)
    print(
        f"base {base:>9,.0f} at L = {L:,}: {c.full_turn} pairs turn, "
        f"{c.n_pairs - c.full_turn} never do; min B_m = "
        f"{part3_base.min_cosine_sum(d, base, L):.2f}"
    )

s = part3_base.equivalent_ntk_factor(d, llama2.rope_theta, code.rope_theta)
gap = part3_base.ntk_frequency_gap(d, llama2.rope_theta, code.rope_theta)
print(
    f"{llama2.rope_theta:,.0f} -> {code.rope_theta:,.0f} is NTK-aware scaling "
    f"with s = {s:.2f} "
    f"(frequencies agree to {gap:.0e})"
)
for length in (4096, 8192, 16384, 32768):
    print(
        f"first grid base with B_m >= 0 up to {length:>6,}: "
        f"{part3_base.smallest_base(d, length):>9,.0f}"
    )
