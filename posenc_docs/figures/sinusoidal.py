"""Figures for the sinusoidal encoding."""

import matplotlib.pyplot as plt
import numpy as np

from posenc_docs import sinusoidal
from posenc_docs.figures import FigureSpec
from posenc_docs.figures.style import DIVERGING, themed


def encoding_matrix(n_positions: int, d: int, base: float = 10000.0, *, theme: str):
    """Heatmap of the whole encoding matrix, positions down, dimensions across."""
    values = sinusoidal.table(n_positions, d, base)  # (n, d)
    with themed(theme):
        fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
        image = ax.imshow(
            values,
            cmap=DIVERGING,
            vmin=-1,
            vmax=1,
            aspect="auto",
            interpolation="nearest",
        )
        ax.set_xlabel("dimension (even = sin, odd = cos)")
        ax.set_ylabel("position")
        ax.set_title(f"Sinusoidal encoding, d = {d}, base = {base:g}")
        if d <= 16:
            ax.set_xticks(np.arange(d))
        fig.colorbar(image, ax=ax, label="value", shrink=0.9)
    return fig


FIGURES = [
    FigureSpec(
        slug="sinusoidal-matrix-d64",
        draw=encoding_matrix,
        params={"n_positions": 100, "d": 64},
        alt=(
            "Heatmap of the sinusoidal encoding for 100 positions and 64 dimensions. "
            "Left columns flip between red and blue every few rows; columns further "
            "right change ever more slowly, and the rightmost ones stay near +1 "
            "(cosine) or 0 (sine) for every position shown."
        ),
    ),
    FigureSpec(
        slug="sinusoidal-matrix-d8",
        draw=encoding_matrix,
        params={"n_positions": 8, "d": 8},
        alt=(
            "Eight-by-eight grid of the d = 8 encoding for positions 0 to 7. Columns 0 "
            "and 1 swing through red and blue from row to row; columns 6 and 7 are "
            "almost constant (about 0 and 1)."
        ),
    ),
]
