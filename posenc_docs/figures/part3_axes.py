"""Figures for Part III, chapter 6: which rotary pairs carry which position axis."""

import matplotlib.pyplot as plt
import numpy as np

from posenc_docs import mrope, rope, scaling
from posenc_docs.figures.spec import FigureSpec
from posenc_docs.figures.style import data_colour, themed
from posenc_docs.pages import part3_axes

MARKERS = ("o", "s", "^")


def pair_axes(layouts: tuple, base: float, span: int, *, theme: str):
    """Wavelength of every pair, coloured by the axis it follows, one panel each."""
    with themed(theme) as colors:
        fig, panels = plt.subplots(
            len(layouts), 1, figsize=(5.6, 2.4 * len(layouts) + 0.7),
            sharex=True, layout="constrained",
        )  # fmt: skip
        for ax, (title, section, interleaved) in zip(panels, layouts, strict=True):
            axes = mrope.mrope_pair_axes(section, interleaved=interleaved)
            wavelength = scaling.wavelengths(rope.inv_freq(2 * len(axes), base))
            for k, name in enumerate(mrope.AXES):
                own = np.flatnonzero(axes == k)
                ax.scatter(own, wavelength[own], s=16, marker=MARKERS[k],
                           color=data_colour(k), label=name)  # fmt: skip
            ax.axhline(span, color=colors["muted"], linestyle="--", linewidth=1)
            ax.annotate(
                f"{span} positions",
                xy=(0.99, span),
                xycoords=("axes fraction", "data"),
                xytext=(0, -3),
                textcoords="offset points",
                ha="right",
                va="top",
                fontsize=8.5,
                color=colors["muted"],
            )  # fmt: skip (right: no data below)
            ax.set_yscale("log")
            ax.set_ylabel("wavelength (log)")
            ax.set_title(title, fontsize=10.5)
            ax.grid(True, which="major", alpha=0.6)
        panels[-1].set_xlabel("pair index i  (pair i = x[i], x[i + d/2])")
        fig.legend(*panels[0].get_legend_handles_labels(), loc="outside lower center",
                   ncols=3, fontsize=9)  # fmt: skip
    return fig


FIGURES = [
    FigureSpec(
        slug="part3_axes-pair-axes",
        draw=pair_axes,
        params={
            "layouts": (
                (
                    "Qwen2-VL: consecutive sections (16, 24, 24)",
                    part3_axes.QWEN2_VL_SECTION,
                    False,
                ),
                (
                    "Qwen3-VL: interleaved (24, 20, 20)",
                    part3_axes.QWEN3_VL_SECTION,
                    True,
                ),
            ),  # fmt: skip
            "base": part3_axes.QWEN2_VL_THETA,
            "span": 32,
        },
        alt=(
            "Wavelength of each of the 64 rotary pairs of a 128-wide head with base "
            "one million, on a log scale from about 6 to about 5 million positions, "
            "coloured by the position axis the pair follows. Top, Qwen2-VL: pairs 0 "
            "to 15 follow time, 16 to 39 height and 40 to 63 width, so every width "
            "pair has a wavelength far above the dashed line at 32 positions. "
            "Bottom, Qwen3-VL: the axes take turns pair by pair, so each axis has "
            "fast and slow pairs."
        ),
    ),
]
