"""Figures for Part III, chapter 4: attention temperature as a function of position."""

import matplotlib.pyplot as plt
import numpy as np

from posenc_docs.figures.spec import FigureSpec
from posenc_docs.figures.style import data_colour, themed
from posenc_docs.pages import part3_nope

STYLES = ("-", "--", ":")


def temperatures(length: int, max_tokens: int, *, theme: str):
    """Logit factor of each rule against the number of tokens n (log axis)."""
    n = np.unique(np.geomspace(1024, max_tokens, 600).astype(np.int64))
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(5.6, 3.8), layout="constrained")
        for k, (name, tau) in enumerate(part3_nope.scales(n - 1, length).items()):
            steps = "steps-post" if name.startswith("Llama 4") else "default"
            ax.plot(n, tau, linestyle=STYLES[k], linewidth=2, color=data_colour(k),
                    label=name, drawstyle=steps)  # fmt: skip
        ax.axvline(length, color=colors["muted"], linestyle="--", linewidth=1)
        ax.set_xscale("log")
        top = ax.secondary_xaxis("top")  # the length's label, off the data
        top.set_xticks([length], labels=[f"L = {length:,}"])
        top.tick_params(labelsize=9, labelcolor=colors["muted"], color=colors["muted"])
        ax.set_xlabel("tokens in context n (query at position n − 1), log")
        ax.set_ylabel("factor on the attention logits")
        ax.grid(True, which="major", alpha=0.6)
        fig.legend(loc="outside lower center", ncols=3, fontsize=9)
    return fig


FIGURES = [
    FigureSpec(
        slug="part3_nope-temperatures",
        draw=temperatures,
        params={"length": 8192, "max_tokens": 1_048_576},
        alt=(
            "Factor on the attention logits against context length from about a "
            "thousand to a million tokens, log axis, with the length 8,192 marked. "
            "All three rules are 1 for short contexts. Llama 4's is a staircase "
            "that steps up every 8,192 tokens to about 1.5 at a million; Qwen's "
            "log-n formula rises smoothly from 1 at 8,192 to about 1.5 (Qwen's "
            "code has factors only up to 32,767 tokens); YaRN's squared "
            "magnitude, with its factor set to n over 8,192, rises fastest, to "
            "about 2.2."
        ),
    ),
]
