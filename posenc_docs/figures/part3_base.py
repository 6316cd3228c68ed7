"""Figures for Part III, page 2: what a larger RoPE base does."""

import matplotlib.pyplot as plt
import numpy as np

from posenc_docs.figures.spec import FigureSpec
from posenc_docs.figures.style import data_colour, log_binned, themed
from posenc_docs.pages import models, part2_extension, part3_base

MARKERS = ("o", "s", "^", "D", "v")


def census_by_base(d: int, lengths: tuple, names: tuple, *, theme: str):
    """Pairs that complete a turn within the training length L0, against the base,
    one curve per L0."""
    bases = np.logspace(3.9, 7.5, 145)
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
        for k, length in enumerate(lengths):
            turning = [
                part2_extension.turn_census(d, b, length).full_turn for b in bases
            ]
            ax.step(bases, turning, where="post", color=data_colour(k), linewidth=1.6,
                    label=f"trained at {length:,}")  # fmt: skip
        for k, name in enumerate(names):
            m = models.get(name)
            c = part2_extension.turn_census(d, m.rope_theta, m.max_position_embeddings)
            ax.plot(m.rope_theta, c.full_turn, MARKERS[k % len(MARKERS)],
                    color=colors["fg"], markersize=6, label=name)  # fmt: skip
        ax.set_xscale("log")
        ax.set_xlabel("RoPE base b (rope_theta, log)")
        ax.set_ylabel(f"pairs of {d // 2} that turn in training")
        ax.set_title(f"A larger base leaves more pairs short of a turn (d = {d})",
                     fontsize=11)  # fmt: skip
        ax.grid(True, alpha=0.6)
        fig.legend(loc="outside lower center", ncols=3, fontsize=9)
    return fig


def cosine_sums(d: int, length: int, bases: tuple, *, theme: str):
    """B_m = sum_i cos(m theta_i) against the distance m, one curve per base: the
    lowest B_m of each log-spaced bin of every distance, so no dip is missed."""
    m = np.arange(length + 1)  # log_binned reads distances 1 .. length
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
        for k, base in enumerate(bases):
            x, b_m, _, _ = log_binned(part3_base.cosine_sum(m, d, base), 1500)
            ax.plot(
                x, b_m, color=data_colour(k), linewidth=1.4, label=f"b = {base:,.0f}"
            )
        ax.axhline(0, color=colors["muted"], linestyle="--", linewidth=1)
        ax.set_xscale("log")
        ax.set_xlabel("distance m, tokens (log)")
        ax.set_ylabel(r"$B_m = \sum_i \cos(m\,\theta_i)$")
        ax.set_title(f"Expected score of a token with its copy, d = {d}", fontsize=11)
        ax.grid(True, alpha=0.6)
        fig.legend(loc="outside lower center", ncols=len(bases), fontsize=9)
    return fig


FIGURES = [
    FigureSpec(
        slug="part3_base-census",
        draw=census_by_base,
        params={
            "d": 128,
            "lengths": (4096, 8192, 16384, 32768),
            "names": part3_base.BASE_MODELS,
        },
        alt=(
            "Number of the 64 rotary pairs of a 128-wide head that complete a full "
            "turn within the training length, against the base on a log axis, one "
            "falling staircase for each length 4,096, 8,192, 16,384 and 32,768. "
            "Points mark Llama 2 7B (base 10,000), Yi 6B (5 million), Llama 3 8B "
            "(500,000), Code Llama 7B (1 million) and Qwen2.5 7B (1 million) at "
            "their own training lengths."
        ),
    ),
    FigureSpec(
        slug="part3_base-cosine-sums",
        draw=cosine_sums,
        params={"d": 128, "length": 32768, "bases": (1e4, 5e5, 1e6, 5e6)},
        alt=(
            "The sum of cosines B_m over the 64 pairs of a 128-wide head against the "
            "distance m from 1 to 32,768 on a log axis, for bases 10,000, 500,000, "
            "1 million and 5 million; each curve is the lowest B_m in each of several "
            "hundred log-spaced bins, so no dip is skipped. All start just below 64, "
            "the number of pairs, and fall "
            "while oscillating. The curve for 10,000 first drops below zero at "
            "1,707 tokens; 500,000 from 18,438 tokens, down to about minus 4; 1 "
            "million only just, from 27,115 tokens; 5 million stays positive. A "
            "dashed line marks zero."
        ),
    ),
]
