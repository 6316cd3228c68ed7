"""Part III, page 2: a raised base as NTK-aware scaling, and the cosine-sum bound."""

from posenc_docs.pages import models, part2_extension, part3_base

llama2, code = models.get("Llama-2-7B"), models.get("CodeLlama-7B")
d, L = code.rotary_dim, code.max_position_embeddings
print(f"L = {L:,}, head width {d}:")
print("      base  pairs turn  never do  min B_m")
for base in (llama2.rope_theta, code.rope_theta):
    c = part2_extension.turn_census(d, base, L)
    low = part3_base.min_cosine_sum(d, base, L)
    print(f"{base:>10,.0f}{c.full_turn:>12}{c.n_pairs - c.full_turn:>10}{low:>9.2f}")

s = part3_base.equivalent_ntk_factor(d, llama2.rope_theta, code.rope_theta)
gap = part3_base.ntk_frequency_gap(d, llama2.rope_theta, code.rope_theta)
print(f"{llama2.rope_theta:,.0f} -> {code.rope_theta:,.0f}: NTK-aware, s = {s:.2f}")
print(f"  (frequencies agree to {gap:.0e})")
print("first grid base with B_m >= 0 up to L:")
for length in (4096, 8192, 16384, 32768):
    print(f"  L = {length:>6,}: {part3_base.smallest_base(d, length):>9,.0f}")
