"""Page 07: which rotary pairs complete a full turn inside the training length."""

from posenc_docs.pages import models
from posenc_docs.pages.part2_extension import turn_census

for name in ("Llama-2-7B", "Llama-3-8B"):
    model = models.get(name)
    d, base, L = model.rotary_dim, model.rope_theta, model.max_position_embeddings
    c = turn_census(d, base, L)
    print(f"{name}: d = {d}, base = {base:g}, trained at L = {L:,}")
    print(
        f"  pairs 0-{c.full_turn - 1} turn at least once "
        f"(pair {c.full_turn - 1}: wavelength {c.last_full_wavelength:,.0f})"
    )
    print(
        f"  pairs {c.boundary_pair}-{c.n_pairs - 1} never do "
        f"({c.n_pairs - c.full_turn} pairs; pair {c.boundary_pair}: "
        f"wavelength {c.boundary_wavelength:,.0f})"
    )
    print(
        f"  the slowest pair covers {c.slowest_fraction:.2%} of a turn "
        f"({360 * c.slowest_fraction:.1f} degrees)"
    )
