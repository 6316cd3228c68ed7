"""Figures for Part II, sections 02-05: sinusoidal grid and clocks, RoPE, ALiBi."""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import LogNorm

from posenc_docs import alibi, rope, sinusoidal
from posenc_docs.figures.spec import FigureSpec
from posenc_docs.figures.style import (
    DIVERGING,
    SEE_THROUGH,
    data_colour,
    ink_on,
    log_binned,
    themed,
)
from posenc_docs.pages import part2_basics


def _print_values(ax, image, values: np.ndarray):
    """Print each cell's value on it, in ink readable on the cell's colour."""
    for (row, col), value in np.ndenumerate(values):
        ink = ink_on(image.to_rgba(value))
        label = f"{value:.2f}".replace("-", "\N{MINUS SIGN}")
        ax.text(col, row, label, ha="center", va="center", color=ink, fontsize=9)


def annotated_encoding_grid(n_positions: int, d: int, *, stacked: bool = False,
                            theme: str):  # fmt: skip
    """Heatmap of the first positions' encodings, each cell labelled with its value.

    ``stacked`` (the phone variant): colour bar below and x label on two lines, so
    the grid gets the column's whole width and its printed values stay apart."""
    values = sinusoidal.table(n_positions, d)  # (n, d)
    with themed(theme):
        fig, ax = plt.subplots(figsize=(6.4, 6.2 if stacked else 5.4),
                               layout="constrained")  # fmt: skip
        image = ax.imshow(values, cmap=DIVERGING, vmin=-1, vmax=1)
        _print_values(ax, image, values)
        ax.set_xticks(np.arange(d))
        ax.set_yticks(np.arange(n_positions))
        ax.set_xlabel("dimension (even = sin, odd = cos)" + ("\n" if stacked else "; ")
                      + "fast pairs left, slow right")  # fmt: skip
        ax.set_ylabel("position")
        # Short enough for one line in for_phone's estimate of the title's room.
        name = "Sinusoidal" if stacked else "Sinusoidal encoding"
        ax.set_title(
            f"{name}, {n_positions} positions, d = {d}",
            fontsize=11 if stacked else plt.rcParams["axes.titlesize"],
        )
        bar = fig.colorbar(image, ax=ax, label="value (blue < 0 < red)", shrink=0.8,
                           location="bottom" if stacked else "right")  # fmt: skip
        if stacked:  # five ticks: nine would collide along a horizontal bar
            bar.set_ticks([-1, -0.5, 0, 0.5, 1])
    return fig


def wavelength_ladder(d: int, base: float = 10000.0, *, theme: str):
    """Wavelength of every sin/cos pair, log scale, against the 2*pi*base limit."""
    lengths = sinusoidal.wavelengths(d, base)  # (d/2,)
    pairs = np.arange(d // 2)
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
        ax.semilogy(pairs, lengths, color=data_colour(0), lw=2, label="pair wavelength")
        limit = part2_basics.limit_wavelength(base)
        ax.axhline(limit, color=data_colour(5), ls="--", lw=1.5)
        ax.text(
            0,
            limit * 1.25,
            f"2π·{base:g} = {limit:,.0f} (never reached)",
            color=colors["fg"],  # vermilion text would have 3.9:1
            fontsize=10,
        )
        marked = pairs[:: d // 8].tolist() + [d // 2 - 1]
        ax.plot(marked, lengths[marked], "o", color=data_colour(0))
        for i in marked:
            ax.annotate(
                f"{lengths[i]:.3g}" if lengths[i] < 1000 else f"{lengths[i]:,.0f}",
                (i, lengths[i]),
                textcoords="offset points",
                xytext=(4, -14),
                fontsize=9,
                color=colors["fg"],
            )
        ax.set_ylim(2, limit * 4)
        ax.set_xlim(-10, d // 2 * 1.2)  # room for the last label, also on a phone
        ax.set_xlabel("pair index i")
        ax.set_ylabel("wavelength (positions)")
        ax.set_title(f"One clock hand per pair: d = {d}, base = {base:g}")
        ax.grid(True, which="major", alpha=0.6)
    return fig


def rope_long_term_decay(d: int, base: float, near: int, far: int, *, theme: str):
    """RoFormer's relative upper bound against distance: near range and log range."""
    bound = rope.relative_upper_bound(np.arange(far + 1), d, base)  # (far + 1,)
    centre, low, mean, high = log_binned(bound, 90)
    with themed(theme):
        fig, (left, right) = plt.subplots(1, 2, figsize=(7, 3.8), layout="constrained")
        left.plot(np.arange(near + 1), bound[: near + 1], color=data_colour(0))
        left.set_title(f"0 to {near} (as in RoFormer Fig. 2)", fontsize=10)
        right.fill_between(
            centre,
            low,
            high,
            color=data_colour(2),
            alpha=0.35,
            lw=0,
            label="range within bin",
        )
        right.semilogx(centre, mean, color=data_colour(2), label="mean within bin")
        right.set_title(f"1 to {far:,}, log scale", fontsize=10)
        right.legend(fontsize=9, loc="upper right")
        for ax in (left, right):
            ax.set_xlabel("relative distance m − n")
            ax.set_ylim(0, d / 4 + 2)
            ax.grid(True, alpha=0.6)
        left.set_ylabel("relative upper bound")
        fig.suptitle(f"RoPE long-term decay, d = {d}, base = {base:g}")
    return fig


def _power_of_two(value: float) -> str:
    """``1/8`` for 2^-3, mathtext ``2^-0.5`` otherwise."""
    exponent = float(np.log2(value))
    if exponent.is_integer() and exponent <= 0:
        return f"1/{2 ** int(-exponent)}"
    return f"$2^{{{exponent:g}}}$"


def alibi_bias_per_head(n_heads: int, seq_len: int, *, theme: str, cols: int = 4):
    """Every head's causal ALiBi penalty matrix, on one shared log color scale,
    ``cols`` heads to a row."""
    penalty = -alibi.alibi_bias(n_heads, seq_len, seq_len)  # (H, T, T), inf above
    slopes = alibi.alibi_slopes(n_heads)  # (H,)
    smallest = slopes.min()  # one step at the gentlest head
    shown = np.ma.masked_invalid(np.where(penalty == 0, smallest / 2, penalty))
    with themed(theme) as colors:
        cmap = plt.get_cmap("viridis_r").with_extremes(bad=SEE_THROUGH, under="white")
        norm = LogNorm(vmin=smallest, vmax=float(shown.max()))
        cols = min(n_heads, cols)
        rows = -(-n_heads // cols)
        fig, axes = plt.subplots(
            rows,
            cols,
            figsize=(7, 1.9 * rows + 0.6),
            layout="constrained",
            squeeze=False,
        )
        between = ": " if cols > 2 else "\n"  # two narrow columns: every title
        for head, ax in enumerate(axes.flat):  # on two lines, not only the long ones
            ax.set_facecolor(colors["grid"])  # shows through the masked cells
            image = ax.imshow(shown[head], cmap=cmap, norm=norm)
            slope = _power_of_two(slopes[head])
            ax.set_title(f"head {head + 1}{between}m = {slope}", fontsize=9)
            ax.set_xticks([0, seq_len - 1])
            ax.set_yticks([0, seq_len - 1])
        fig.colorbar(image, ax=axes, label="penalty m·(i − j), log scale", shrink=0.9)
        fig.supxlabel("key position j (gray: masked future)", fontsize=10)
        fig.supylabel("query position i", fontsize=10)
    return fig


FIGURES = [
    FigureSpec(
        slug="part2_basics-sinusoidal-grid-8x8",
        draw=annotated_encoding_grid,
        params={"n_positions": 8, "d": 8},
        phone_params={"stacked": True},
        alt=(
            "Eight-by-eight grid of sinusoidal encoding values, positions 0 to 7 down "
            "and dimensions 0 to 7 across, each cell printed with its value. Columns 0 "
            "and 1 go through a full turn over the eight rows, between strong red "
            "(positive) and strong blue (negative); columns 6 and 7 barely move from "
            "0 and 1."
        ),
    ),
    FigureSpec(
        slug="part2_basics-sinusoidal-wavelengths-d512",
        draw=wavelength_ladder,
        params={"d": 512},
        alt=(
            "Line on a log scale rising straight from a wavelength of about 6 "
            "positions "
            "at pair 0 to about 60,600 at pair 255, with a dashed line at 2π·10000 "
            "(about 62,800) that the curve stays below."
        ),
    ),
    FigureSpec(
        slug="part2_basics-rope-long-term-decay",
        draw=rope_long_term_decay,
        params={"d": 128, "base": 10000.0, "near": 256, "far": 65536},
        alt=(
            "Two panels of the RoPE relative upper bound for d = 128. Left: from 32.5 "
            "at distance 0 it falls fast, with wiggles, to about 6.5 by distance 256. "
            "Right, on a log axis to 65,536, distances are grouped in log-spaced "
            "bins, each drawn as a band from its lowest to its highest value with "
            "a line at its mean: past a few hundred the means keep falling slowly "
            "and level off after a few thousand, while the band widens to between "
            "roughly 1 and 14 rather than reaching zero."
        ),
    ),
    FigureSpec(
        slug="part2_basics-alibi-bias-heads",
        draw=alibi_bias_per_head,
        params={"n_heads": 8, "seq_len": 8},
        phone_params={"cols": 2},
        alt=(
            "Eight small 8-by-8 matrices, one per ALiBi head, showing the penalty "
            "each query gives each key. The upper triangle is gray (masked future "
            "keys) and the diagonal is white (no penalty). On a shared log color "
            "scale head 1, slope 1/2, "
            "turns dark purple within a few steps below the diagonal, while head 8, "
            "slope 1/256, is yellow next to the diagonal and only mid-green in the "
            "far corner."
        ),
    ),
]
