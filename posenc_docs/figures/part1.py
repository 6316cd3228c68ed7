"""Figures for Part I: the encoding matrix, offsets, the alternatives, the stack.

Layouts use fixed margins (``fig.subplots_adjust``) rather than constrained
layout: the figures are drawn at every clean build, and fixed margins keep that
cheap.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_rgba
from matplotlib.patches import FancyBboxPatch
from matplotlib.ticker import NullLocator

from posenc_docs import alibi, rope, sinusoidal
from posenc_docs.figures.spec import PHONE_MIN_FONT, SCRIPT_SHARE, FigureSpec
from posenc_docs.figures.style import (
    DIVERGING,
    ON_ANY_CELL,
    SEE_THROUGH,
    data_colour,
    themed,
)
from posenc_docs.pages import part1, part2_basics


def encoding_with_rows(n_positions: int, d: int, a: int, b: int, *, theme: str):
    """Heatmap of the whole encoding matrix with rows ``a`` and ``b`` marked."""
    values = sinusoidal.table(n_positions, d)  # (n, d)
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
        image = ax.imshow(
            values, cmap=DIVERGING, vmin=-1, vmax=1, aspect="auto",
            interpolation="nearest",
        )  # fmt: skip
        for name, pos, color in (("A", a, data_colour(1)), ("B", b, data_colour(2))):
            ax.axhline(pos, color=color, linewidth=2.5, path_effects=ON_ANY_CELL)
            ax.text(d * 0.55, pos - 1.5, f"{name} = {pos}", color=colors["fg"],
                    bbox={"facecolor": colors["grid"], "edgecolor": color})  # fmt: skip
        ax.set_xlabel("dimension (pair i = dimensions 2i and 2i+1)")
        ax.set_ylabel("position")
        ax.set_title(f"The whole encoding: d = {d}, positions 0 to {n_positions - 1}")
        fig.colorbar(image, ax=ax, fraction=0.05, pad=0.02).set_label("value")
    return fig


def two_positions(d: int, a: int, b: int, *, theme: str):
    """PE(a) and PE(b) by dimension, and each pair's share of their dot product."""
    pe_a, pe_b = sinusoidal.encode(a, d), sinusoidal.encode(b, d)  # (d,) each
    per_pair = (pe_a * pe_b).reshape(-1, 2).sum(1)  # (d/2,) = cos((b-a) w_i)
    with themed(theme) as colors:
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 5.4))
        fig.subplots_adjust(left=0.11, right=0.97, top=0.9, bottom=0.1, hspace=0.6)
        dims = np.arange(d)
        top.plot(dims, pe_a, "o", color=data_colour(1), markersize=5, label=f"PE({a})")
        top.plot(dims, pe_b, "s", color=data_colour(2), markersize=4, label=f"PE({b})")
        top.set(xlabel="dimension", ylabel="value")
        top.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2)
        bottom.bar(np.arange(d // 2), per_pair, color=data_colour(0))
        bottom.axhline(0, color=colors["muted"], linewidth=0.8)
        bottom.set(xlabel="pair i", ylabel="sin·sin + cos·cos")
        bottom.set_title(
            rf"pair i adds $\cos({b - a}\,\omega_i)$; "
            f"the sum is PE({a})·PE({b}) = {pe_a @ pe_b:.2f}"
        )
    return fig


def offset_curves(d: int, starts: tuple, max_offset: int, *, theme: str):
    """PE(A)·PE(A+k) against k for several A, each computed from the vectors."""
    offsets = np.arange(max_offset + 1)
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 4))
        fig.subplots_adjust(left=0.1, right=0.97, top=0.9, bottom=0.13)
        for n, start in enumerate(starts):
            rows = sinusoidal.encode(start + offsets, d)  # (k, d)
            sims = rows @ sinusoidal.encode(start, d)  # (k,)
            first = n == 0  # a wide grey band, the others drawn thin inside it
            ax.plot(
                offsets, sims, linestyle="-" if first else (0, (4, 1 + 2 * n)),
                color=colors["muted"] if first else data_colour(n),
                linewidth=7 if first else 1.8, alpha=0.6 if first else 1,
                label=f"A = {start:,}",
            )  # fmt: skip
        ax.set_ylim(bottom=0)
        ax.set_xlabel("offset k = B − A")
        ax.set_ylabel("PE(A) · PE(A + k)")
        ax.set_title(f"One curve for every start A (d = {d})")
        ax.legend(ncols=2)
    return fig


def rope_rotation(
    thetas: tuple, n_positions: int, *, theme: str, stacked: bool = False
):
    """One (q_2i, q_2i+1) pair of a query at positions 0..n-1, for two speeds (side
    by side, or one above the other if ``stacked``)."""
    start = np.array([[1.0, 0.0]])  # (1, 2): one pair, one token
    n = len(thetas)
    shape, size = ((n, 1), (4.8, 3.4 * n)) if stacked else ((1, n), (7, 3.9))
    with themed(theme) as colors:
        fig, axes = plt.subplots(*shape, figsize=size)
        fig.subplots_adjust(left=0.02, right=0.98, top=0.82, bottom=0.02, wspace=0.1)
        for ax, theta in zip(axes, thetas, strict=True):
            ax.add_patch(plt.Circle((0, 0), 1, fill=False, color=colors["grid"]))
            for m in range(n_positions):
                x, y = rope.apply_rope(start, [m], inv_freq=np.array([theta]))[0]
                color = data_colour(m)
                ax.annotate("", (x, y), (0, 0), arrowprops={
                    "arrowstyle": "-|>", "color": color, "lw": 2})  # fmt: skip
                ax.text(1.22 * x, 1.22 * y, f"m={m}", ha="center", va="center")
            ax.set(xlim=(-1.45, 1.45), ylim=(-1.45, 1.45), aspect="equal")
            ax.axis("off")
            ax.set_title(f"θ = {theta:g} rad per token")
        fig.suptitle("RoPE: at position m, each q/k pair is turned by m·θ")
    return fig


def alibi_picture(
    n_heads: int, size: int, max_distance: int, *, theme: str, stacked: bool = False
):
    """One head's causal bias matrix, and -m·distance for every head (side by side,
    or one above the other if ``stacked``)."""
    bias = alibi.alibi_bias(n_heads, size, size)[0]  # (size, size), head 1
    slopes = alibi.alibi_slopes(n_heads)
    shape, size_in = ((2, 1), (4.8, 7.2)) if stacked else ((1, 2), (7, 3.9))
    with themed(theme) as colors:
        fig, (left, right) = plt.subplots(*shape, figsize=size_in, layout="constrained")
        cmap = plt.get_cmap("Blues_r").with_extremes(bad=SEE_THROUGH)
        left.set_facecolor(colors["grid"])  # shows through the masked cells
        image = left.imshow(np.ma.masked_invalid(bias), cmap=cmap)
        left.set(xlabel="key position j", ylabel="query position i")
        left.set_title(f"head 1 (m = 1/{1 / slopes[0]:.0f});\ngrey = masked")
        fig.colorbar(image, ax=left, shrink=0.8, label="bias")
        distance = np.arange(max_distance + 1)
        for h, m in enumerate(slopes):
            right.plot(distance, -m * distance, color=data_colour(h))
        right.set(xlabel="distance i − j", ylabel="bias −m·(i − j)", ylim=(-20, 0.5))
        right.set_title(f"all {n_heads} heads: straight lines,\nslopes 1/2 to 1/256")
    return fig


def learned_wall(max_len: int, d: int, shown: int, *, theme: str):
    """A learned position table at initialisation, and no rows past ``max_len``."""
    weights = np.random.default_rng(0).normal(0, 0.02, (max_len, d))  # (L, d)
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 3.9), layout="constrained")
        image = ax.imshow(
            weights.T, cmap=DIVERGING, vmin=-0.05, vmax=0.05, aspect="auto",
            interpolation="nearest", extent=(-0.5, max_len - 0.5, d - 0.5, -0.5),
        )  # fmt: skip
        ax.axvspan(max_len - 0.5, shown - 0.5, facecolor="none", hatch="//",
                   edgecolor=colors["muted"])  # fmt: skip
        ax.axvline(max_len - 0.5, color=data_colour(5), linewidth=3)
        ax.text(
            (max_len + shown) / 2, d / 2, f"no row for\nposition ≥ {max_len}",
            ha="center", va="center", color=colors["fg"],
            bbox={"facecolor": colors["grid"], "edgecolor": colors["muted"]},
        )  # fmt: skip
        ax.set(xlim=(-0.5, shown - 0.5), xlabel="position", ylabel="dimension")
        ax.set_title(f"Learned table: {max_len} rows × {d} (random init, std 0.02)")
        fig.colorbar(image, ax=ax, fraction=0.05, pad=0.02).set_label("value")
    return fig


def clock_periods(d: int, train_lengths: tuple, *, theme: str):
    """Wavelength of every pair at width ``d``, on a log axis."""
    periods = sinusoidal.wavelengths(d)  # (d/2,)
    ceiling = part2_basics.limit_wavelength()  # 2 pi base, base 10000
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 4))
        fig.subplots_adjust(left=0.12, right=0.97, top=0.91, bottom=0.13)
        ax.semilogy(np.arange(d // 2), periods, color=data_colour(0), linewidth=2.5)
        ax.yaxis.set_minor_locator(NullLocator())
        ax.axhline(ceiling, color=colors["muted"], linestyle="--")
        ax.text(2, ceiling * 1.4, f"2π·10000 = {ceiling:,.0f} (no pair gets there)")
        for n, length in enumerate(train_lengths):
            ax.axhline(length, color=data_colour(n + 1), linestyle=":", linewidth=2)
            ax.text(2, length * 1.3, f"{length:,} positions")
        ax.annotate(
            f"pair {d // 2 - 1}: {periods[-1]:,.0f}", (d // 2 - 1, periods[-1]),
            xytext=(-5, -115), textcoords="offset points", ha="right",
            arrowprops={"arrowstyle": "->", "color": colors["fg"]},
        )  # fmt: skip
        ax.set(ylim=(3, ceiling * 5), xlabel="pair i", ylabel="positions per turn")
        ax.set_title(f"Each pair is a clock; d = {d} gives {d // 2} of them")
    return fig


def phase_gaps(d: int, train_len: int, far: int, *, theme: str):
    """Per pair, how far past any trained angle PE(train_len) and PE(far) turn."""
    pairs = np.arange(d // 2)
    with themed(theme):
        fig, ax = plt.subplots(figsize=(7, 3.9))
        fig.subplots_adjust(left=0.13, right=0.97, top=0.9, bottom=0.14)
        for pos, color, width in (
            (far, data_colour(5), 2),
            (train_len, data_colour(2), 3),
        ):
            gap = part1.phase_gap(pos, train_len, d)  # (d/2,)
            ax.plot(pairs, gap, color=color, linewidth=width, label=f"PE({pos:,})")
        ax.set_xlabel("pair i (fast → slow)")
        ax.set_ylabel("radians beyond any\nangle seen in training")
        ax.set_title(f"Trained on positions 0 to {train_len - 1:,}, d = {d}")
        ax.legend(loc="upper left")
    return fig


def _box(ax, y, text, fill, edge, size=None):
    """A rounded box 6.6 wide centred at x = 4.9, with its label."""
    ax.add_patch(FancyBboxPatch(
        (1.6, y - 0.32), 6.6, 0.64, boxstyle="round,pad=0.05",
        facecolor=fill, edgecolor=edge, linewidth=1.2,
    ))  # fmt: skip
    ax.text(4.9, y, text, ha="center", va="center", fontsize=size)


def insertion_points(*, theme: str, label_size=None):
    """Block diagram of attention with the three places position can enter.

    ``label_size``: points of every box's label (the phone variant's are all as
    large as the labels with subscripts must be there, so they match).
    """
    steps = [  # (label, insertion point 1-3 or 0 for a plain step)
        ("token embeddings $x$", 0),
        ("$x + PE$  (sinusoidal, learned)", 1),
        ("$q = xW_q,\\ k = xW_k,\\ v = xW_v$", 0),
        ("rotate $q$, $k$ by position  (RoPE)", 2),
        ("scores = qkᵀ/√dₖ", 0),  # plain text: a mathtext radical is drawn small
        ("scores $-\\ m_h \\cdot$distance  (ALiBi)", 3),
        ("softmax(scores) $\\cdot\\ v$", 0),
    ]
    with themed(theme) as colors:
        fig, ax = plt.subplots(figsize=(7, 5.6))
        fig.subplots_adjust(left=0.01, right=0.99, top=0.99, bottom=0.01)
        ys = np.arange(len(steps))[::-1] * 1.0
        for (label, point), y in zip(steps, ys, strict=True):
            fill = to_rgba(data_colour(point - 1), 0.4) if point else "none"
            _box(ax, y, label, fill, colors["fg"], label_size)
            if point:
                ax.text(8.35, y, f"insertion\npoint {point}", va="center")
        for y in ys[1:]:
            ax.annotate("", (4.9, y + 0.37), (4.9, y + 0.63), arrowprops={
                "arrowstyle": "-|>", "color": colors["fg"]})  # fmt: skip
        v_from, v_to, x_side = ys[2], ys[-1], 1.35
        ax.plot([1.55, x_side, x_side], [v_from, v_from, v_to], color=colors["muted"])
        ax.annotate("", (1.55, v_to), (x_side, v_to), arrowprops={
            "arrowstyle": "-|>", "color": colors["muted"]})  # fmt: skip
        ax.text(x_side - 0.1, (v_from + v_to) / 2, "v skips\nRoPE\nand ALiBi",
                ha="right", va="center", color=colors["muted"])  # fmt: skip
        ax.set(xlim=(0, 10), ylim=(ys[-1] - 0.5, ys[0] + 0.5))
        ax.axis("off")
    return fig


FIGURES = [
    FigureSpec(
        slug="part1-encoding-matrix",
        draw=encoding_with_rows,
        params={"n_positions": 128, "d": 64, "a": 20, "b": 70},
        alt=(
            "Heatmap of the sinusoidal encoding for positions 0 to 127 and 64 "
            "dimensions, with rows A = 20 and B = 70 marked by horizontal lines. "
            "The leftmost columns alternate red and blue every few rows; columns "
            "further right change ever more slowly."
        ),
    ),
    FigureSpec(
        slug="part1-two-positions",
        draw=two_positions,
        params={"d": 64, "a": 20, "b": 70},
        alt=(
            "Top: the 64 values of PE(20) and PE(70) by dimension; they nearly "
            "agree in the first four, differ widely over the next two dozen or so, "
            "and agree on the right. Bottom: each pair's contribution to their dot "
            "product, cos(50 times the pair frequency), swinging between -1 and 1 "
            "for fast pairs and close to 1 for slow pairs."
        ),
    ),
    FigureSpec(
        slug="part1-offset-curves",
        draw=offset_curves,
        params={"d": 64, "starts": (0, 20, 70, 5000), "max_offset": 120},
        alt=(
            "PE(A) dot PE(A + k) against the offset k for A = 0, 20, 70 and 5,000: "
            "a wide grey curve with three thin dashed coloured curves running "
            "exactly inside it: 32 at k = 0, about 21 by k = 10, then drifting "
            "down with ripples, its dips reaching about 11 at k = 96 and 116."
        ),
    ),
    FigureSpec(
        slug="part1-rope-rotation",
        draw=rope_rotation,
        params={"thetas": (1.0, 0.25), "n_positions": 6},
        phone_params={"stacked": True},
        alt=(
            "Two unit circles with one arrow per position m = 0 to 5. At 1 radian "
            "per token the arrow swings most of the way around the circle in five "
            "steps; at 0.25 radian per token the six arrows fan out over just "
            "1.25 radians."
        ),
    ),
    FigureSpec(
        slug="part1-alibi-bias",
        draw=alibi_picture,
        params={"n_heads": 8, "size": 10, "max_distance": 40},
        phone_params={"stacked": True},
        alt=(
            "First panel: ALiBi's bias matrix for head 1 of 8 over 10 positions; "
            "zero on the diagonal, more negative further left, grey masked cells "
            "above the diagonal. Second panel: the bias against distance for all "
            "eight heads, straight lines falling with slopes from 1/2 to 1/256."
        ),
    ),
    FigureSpec(
        slug="part1-learned-wall",
        draw=learned_wall,
        params={"max_len": 64, "d": 32, "shown": 96},
        alt=(
            "A learned position table of 64 rows at its random initialisation, "
            "shown as noisy coloured columns for positions 0 to 63, then a thick "
            "vertical wall and a hatched empty region for positions 64 to 95 "
            "labelled no row for position 64 or more."
        ),
    ),
    FigureSpec(
        slug="part1-clock-periods",
        draw=clock_periods,
        params={"d": 512, "train_lengths": (512, 2048)},
        alt=(
            "Wavelength of each of the 256 pairs at d = 512 on a logarithmic axis, "
            "rising in a straight line from about 6 positions to about 60,611. "
            "Dotted lines mark 512 and 2,048 positions; a dashed line at 2 pi "
            "times 10,000 lies above the last pair."
        ),
    ),
    FigureSpec(
        slug="part1-phase-gaps",
        draw=phase_gaps,
        params={"d": 512, "train_len": 2048, "far": 50_000},
        alt=(
            "For each of 256 pairs, how many radians the angle lies beyond anything "
            "seen at training positions 0 to 2,047. PE(2,048) stays at zero "
            "everywhere; PE(50,000) is zero for the fast pairs and jumps to values "
            "up to about 3 radians for the slow pairs."
        ),
    ),
    FigureSpec(
        slug="part1-insertion-points",
        draw=insertion_points,
        params={},
        phone_params={"label_size": PHONE_MIN_FONT / SCRIPT_SHARE},
        alt=(
            "Block diagram of one attention layer from token embeddings to the "
            "output. Three coloured boxes mark where position enters: added to x "
            "before the projections (sinusoidal, learned), a rotation of q and k "
            "after them (RoPE), and a bias on the scores (ALiBi); v bypasses the "
            "last two. PE is the position vector and m_h head h's ALiBi slope. A "
            "model uses only its own scheme's box; through the others the data "
            "passes unchanged."
        ),
    ),
]


def explorer_start() -> dict:
    """Start values of the encoding explorer: the figures it replaces, their params."""
    params = {spec.slug: spec.params for spec in FIGURES}
    matrix = params["part1-encoding-matrix"]
    return {
        "d": matrix["d"],
        "positions": matrix["n_positions"],
        "a": matrix["a"],
        "b": matrix["b"],
        "heads": params["part1-alibi-bias"]["n_heads"],
        "max-len": params["part1-learned-wall"]["max_len"],
    }


WIDGETS = {"encoding-explorer": explorer_start}
