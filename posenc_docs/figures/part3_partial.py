"""Figures for Part III, page 3: which features of a head carry position."""

import matplotlib.pyplot as plt
from matplotlib.patches import Patch

from posenc_docs.figures.spec import FigureSpec
from posenc_docs.figures.style import data_colour, themed
from posenc_docs.pages import models

ROTATED_LAST = ("DeepSeek-V3",)  # HF concatenates (q_nope, q_pe): rope dims last


def head_layouts(names: tuple, *, theme: str):
    """One bar per model: the q.k features of one head, rotated ones coloured."""
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 0.62 * len(names) + 1.4),
                               layout="constrained")  # fmt: skip
        for row, name in enumerate(names):
            model = models.get(name)
            d, r = model.head_dim, model.rotary_dim
            spans = (
                [(d - r, r), (0, d - r)]
                if name in ROTATED_LAST
                else [(0, r), (r, d - r)]
            )
            ax.broken_barh([spans[0]], (row - 0.35, 0.7), color=data_colour(0))
            ax.broken_barh([spans[1]], (row - 0.35, 0.7), color=colors["grid"])
            ax.annotate(
                f"{r} of {d}", xy=(d, row), xytext=(5, 0),
                textcoords="offset points", va="center", fontsize=9,
            )  # fmt: skip
        ax.set_yticks(range(len(names)), labels=names)
        ax.invert_yaxis()
        # Room right of the widest bar for its label, also on a phone's narrower axes.
        widest = max(models.get(name).head_dim for name in names)
        ax.set_xlim(0, 1.32 * widest)
        ax.set_xlabel("feature index within one head's q·k")
        ax.set_title("Which features of a head are rotated", fontsize=11)
        fig.legend(
            handles=[Patch(color=data_colour(0), label="rotated: carries position"),
                     Patch(color=colors["grid"], label="passed through: content only")],
            loc="outside lower center", ncols=2, fontsize=9,
        )  # fmt: skip
    return fig


FIGURES = [
    FigureSpec(
        slug="part3_partial-head-layouts",
        draw=head_layouts,
        params={
            "names": ("Llama-2-7B", "GPT-J-6B", "GPT-NeoX-20B", "Phi-2", "DeepSeek-V3")
        },
        alt=(
            "Horizontal bars, one per model, each as long as one head's query-key "
            "width, with the rotated features coloured. Llama 2 7B: all 128. GPT-J "
            "6B: the first 64 of 256. GPT-NeoX-20B: the first 24 of 96. Phi-2: the "
            "first 32 of 80. DeepSeek V3: 64 of 192, placed last, after 128 "
            "position-free features."
        ),
    ),
]
