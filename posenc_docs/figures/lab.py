"""Figures of the lab, drawn from the committed ``posenc_docs/lab/results.json``."""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from posenc_docs.figures.spec import FigureSpec
from posenc_docs.figures.style import data_colour, ink_on, themed
from posenc_docs.lab import paper
from posenc_docs.lab.results import (
    LABELS,
    accuracies,
    depth_grid,
    eval_rows,
    floor_perplexity,
    load_results,
    perplexities,
    settings,
)

# One data colour (its index), marker and line per model, the same in every
# panel; a fine-tuned model has its method's colour and a dashed line.
STYLE = {
    "none": (7, "v", "-"),
    "learned": (1, "s", "-"),
    "sinusoidal": (5, "o", "-"),
    "rope": (0, "D", "-"),
    "alibi": (2, "^", "-"),
    "T5 bias": (3, "P", "-"),
    "pi": (4, "<", "-"),
    "ntk": (3, "P", "-"),
    "dynamic": (7, "X", "-"),
    "yarn": (1, ">", "-"),
    "llama3": (5, "*", "-"),
    "ft_rope": (0, "D", "--"),
    "ft_pi": (4, "<", "--"),
    "ft_yarn": (1, ">", "--"),
}
CMAP = "cividis"  # sequential, readable with every common colour-vision deficiency


def _colour(name: str) -> str:
    return data_colour(STYLE[name][0])


def _curve(ax, name, x, y, label, band=None, bars=False):
    colour, (_, marker, line) = _colour(name), STYLE[name]
    ax.plot(x, y, color=colour, marker=marker, ls=line, label=label, lw=1.8, ms=5)
    if band is None:  # else the lowest and highest seed: a bar at each x, or a band
        return
    if bars:
        ax.vlines(x, *band, color=colour, lw=1.5)
    else:
        ax.fill_between(x, *band, color=colour, alpha=0.2, lw=0)


def _seed_curve(ax, name, experiment, results, dodge=None):
    """Mean over seeds with a min-max band, at every length the model ran; with
    ``dodge`` (octaves), min-max bars instead, the curve moved that far sideways so
    that wide ranges of neighbouring curves stay apart."""
    c = settings(experiment, results)
    values = perplexities if experiment == "perplexity" else accuracies
    ran = [
        m
        for m in c["eval_multiples"]
        if "error" not in eval_rows(name, m, experiment, results)[0]
    ]
    seeds = np.array([values(name, m, results=results) for m in ran])  # (x, seeds)
    scale = 1 if experiment == "perplexity" else 100
    band = (scale * seeds.min(1), scale * seeds.max(1))
    failed = len(ran) < len(c["eval_multiples"])
    label = f"{LABELS[name]} (×: IndexError)" if failed else LABELS[name]
    shift = 1.0 if dodge is None else 2.0**dodge
    x = shift * np.array(ran, dtype=float)
    _curve(ax, name, x, scale * seeds.mean(1), label, band, bars=dodge is not None)
    if failed:  # a cross on the length axis at the first length with no value
        ax.plot(shift * c["eval_multiples"][len(ran)], 0, marker="x", ms=7, mew=2,
                color=_colour(name), transform=ax.get_xaxis_transform(),
                clip_on=False)  # fmt: skip


def _floor(ax, results, colours):
    multiples = settings("perplexity", results)["eval_multiples"]
    floor = [floor_perplexity(m, results) for m in multiples]
    ax.plot(multiples, floor, ls=":", color=colours["muted"], lw=1.2)
    ax.plot([], [], ls=":", color=colours["muted"], label="best possible")


def _axes(ax, title, xlabel, log_y=True):
    ax.set_xscale("log", base=2)
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    ax.xaxis.set_major_formatter(plain)
    if log_y:
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
        ax.yaxis.set_major_formatter(plain)
        ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.grid(True, which="major", lw=0.5)


def _legend(ax, below: bool = False):
    """The axes' legend right of it, or (``below``: a phone's column, where the
    plot kept a third of the width beside it) under it: for the axes with the x
    label the figure's legend at its foot, where the layout makes room; for an
    axes above it (sharex: no tick labels) just under its frame."""
    if not below:
        ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1))
    elif ax.get_xlabel():
        handles, labels = ax.get_legend_handles_labels()
        ax.figure.legend(handles, labels, loc="outside lower center", fontsize=9)
    else:
        ax.legend(fontsize=9, loc="upper center", bbox_to_anchor=(0.5, 0), ncols=2)


XLABEL = "evaluation length / training length L"
PASSKEY_DODGE = 0.07  # octaves between neighbouring curves' min-max bars


def paper_vs_lab(*, theme: str, legend_below: bool = False):
    """Perplexity against evaluation length / training length: paper, then lab."""
    results = load_results()
    with themed(theme) as colours:
        fig, (top, bottom) = plt.subplots(
            2, 1, figsize=(7, 6.4), sharex=True, layout="constrained"
        )
        ratio = [n / paper.TRAIN_LEN for n in paper.TABLE2_LENGTHS]
        for name, values in paper.TABLE2_PERPLEXITY.items():
            kept = [(x, v) for x, v in zip(ratio, values, strict=True) if v is not None]
            _curve(top, paper.LAB_NAME.get(name, name), *zip(*kept, strict=True), name)
        _axes(top, "ALiBi paper: WikiText-103, L = 512", "")
        for name in settings("perplexity", results)["schemes"]:
            _seed_curve(bottom, name, "perplexity", results)
        _floor(bottom, results, colours)
        train_len = settings("perplexity", results)["train_len"]
        seeds = len(settings("perplexity", results)["seeds"])
        _axes(
            bottom,
            f"This lab: Markov source, L = {train_len}; mean, range of {seeds} seeds",
            XLABEL,
        )
        for ax in (top, bottom):
            ax.set_ylabel("perplexity (log)")
            _legend(ax, legend_below)
    return fig


def rope_scalings(*, theme: str, legend_below: bool = False):
    """The trained RoPE model, unchanged and with five zero-shot extensions."""
    results = load_results()
    height = 5.6 if legend_below else 4  # seven legend lines under the plot
    with themed(theme) as colours:
        fig, ax = plt.subplots(figsize=(7, height), layout="constrained")
        for name in ["rope", *settings("perplexity", results)["zero_shot"]]:
            _seed_curve(ax, name, "perplexity", results)
        _floor(ax, results, colours)
        _axes(ax, "RoPE, zero-shot context extension (s = length / L)", XLABEL)
        ax.set_ylabel("perplexity (log scale)")
        _legend(ax, legend_below)
    return fig


def finetune(*, theme: str, stacked: bool = False):
    """Perplexity and passkey accuracy: zero-shot against fine-tuned at 4 L."""
    results = load_results()
    names = ["rope", "pi", "yarn", "ft_rope", "ft_pi", "ft_yarn"]
    shape, size = ((2, 1), (5, 7.5)) if stacked else ((1, 2), (9, 4))
    with themed(theme) as colours:
        fig, (left, right) = plt.subplots(*shape, figsize=size, layout="constrained")
        for i, name in enumerate(names):  # accuracy ranges are wide: bars, apart
            _seed_curve(left, name, "perplexity", results)
            dodge = PASSKEY_DODGE * (i - (len(names) - 1) / 2)
            _seed_curve(right, name, "passkey", results, dodge=dodge)
        _floor(left, results, colours)
        _axes(left, "perplexity (log scale)", XLABEL)
        _axes(right, "passkey accuracy, all depths (%)", XLABEL, log_y=False)
        right.set_ylim(-3, 103)
        for ax in (left, right):
            ax.axvline(4, color=colours["muted"], lw=0.8, ls="--")
        _legend(right, below=stacked)  # stacked, a phone's: both panels full width
    return fig


def _grid(ax, name, results, colours):
    """One model's accuracy by depth (rows) and length (columns), in %."""
    c = settings("passkey", results)
    grid = np.array(
        [
            [np.nan if v is None else 100 * v for v in row]
            for row in depth_grid(name, results)
        ]
    )  # (depths, lengths)
    image = ax.imshow(grid, cmap=CMAP, vmin=0, vmax=100, aspect="auto")
    for (row, col), value in np.ndenumerate(grid):
        text = "—" if np.isnan(value) else f"{value:.0f}"
        ink = colours["fg"] if np.isnan(value) else ink_on(image.to_rgba(value))
        ax.text(col, row, text, ha="center", va="center", fontsize=8, color=ink)
    ax.set_xticks(
        range(len(c["eval_multiples"])), [f"{m}" for m in c["eval_multiples"]]
    )
    ax.set_yticks(range(len(c["depths"])), [f"{100 * d:.0f}%" for d in c["depths"]])
    ax.set_title(LABELS[name], fontsize=9)
    return image


def passkey_grids(*, theme: str, names: tuple, columns: int):
    """Needle in a haystack: accuracy by key depth and length, one panel a model."""
    results = load_results()
    rows = -(-len(names) // columns)
    with themed(theme) as colours:
        fig, axes = plt.subplots(
            rows,
            columns,
            figsize=(2.3 * columns + 0.8, 2.3 * rows + 0.4),
            squeeze=False,
            layout="constrained",
        )
        for ax, name in zip(axes.flat, names, strict=False):
            image = _grid(ax, name, results, colours)
        for ax in axes.flat[len(names) :]:
            ax.set_axis_off()
        for ax in axes[:, 0]:
            ax.set_ylabel("key depth")
        for ax in axes.flat[max(len(names) - columns, 0) : len(names)]:
            ax.set_xlabel("length / L")  # the lowest panel of each column
        fig.colorbar(image, ax=axes, label="exact match (%)", shrink=0.8)
    return fig


SCHEME_GRIDS = ("none", "learned", "sinusoidal", "rope", "alibi")
ROPE_GRIDS = ("rope", "pi", "ntk", "dynamic", "yarn", "llama3", "ft_rope", "ft_pi")
ROPE_GRIDS += ("ft_yarn",)

FIGURES = [
    FigureSpec(
        slug="lab-paper-vs-lab",
        draw=paper_vs_lab,
        phone_params={"legend_below": True},
        alt=(
            "Two log-log panels, one above the other, of perplexity against "
            "evaluation length over training length. Top, the ALiBi paper's "
            "WikiText-103 numbers: sinusoidal climbs steeply, rotary more slowly, "
            "T5 bias rises late and ALiBi stays flat. Bottom, this lab's tiny models "
            "on a Markov source, each line the mean of three seeds with a shaded "
            "band from the lowest to the highest seed: sinusoidal jumps at twice L, "
            "RoPE climbs a step later, ALiBi stays flat just above the dotted "
            "best-possible line, the model without positions starts high, and the "
            "learned table ends at L, a cross on the length axis at 2L marking its "
            "IndexError."
        ),
    ),
    FigureSpec(
        slug="lab-rope-scalings",
        draw=rope_scalings,
        phone_params={"legend_below": True},
        alt=(
            "Perplexity of the trained RoPE models from L to 16 L on log axes, "
            "unchanged and with five zero-shot extensions (position interpolation, "
            "NTK-aware, dynamic NTK, YaRN, Llama 3.1), each the mean of three "
            "seeds with a min-max band. Unchanged RoPE and position interpolation "
            "climb steeply past L, interpolation highest at 16 L; NTK-aware "
            "climbs later; dynamic NTK stays lowest, then YaRN and Llama 3.1. The "
            "values are in the table below the figure."
        ),
    ),
    FigureSpec(
        slug="lab-finetune",
        draw=finetune,
        phone_params={"stacked": True},
        alt=(
            "Two panels against evaluation length over L, with a dashed vertical "
            "line at 4 L, the fine-tuning length. First, perplexity on log axes; "
            "second, passkey accuracy in percent. Solid lines: RoPE, RoPE with PI "
            "and RoPE with YaRN, zero-shot. Dashed lines of the same colours: the "
            "same three after a short fine-tune at 4 L. Each point is the mean of "
            "three seeds, in the first panel with a min-max band, in the second with "
            "a min-max bar, the six curves set slightly apart sideways so that "
            "their bars do not overlap. At 4 L fine-tuned YaRN has the lowest "
            "perplexity; at L fine-tuned PI is worse than RoPE in both panels; "
            "past 4 L the perplexity of every fine-tuned model rises, and at 16 L "
            "fine-tuned YaRN's is above zero-shot YaRN's. The values are in the "
            "tables."
        ),
    ),
    FigureSpec(
        slug="lab-passkey-schemes",
        draw=passkey_grids,
        params={"names": SCHEME_GRIDS, "columns": 3},
        phone_params={"columns": 2},
        alt=(
            "Five heatmaps, one per positional scheme (none, learned, "
            "sinusoidal, RoPE, ALiBi), of passkey exact-match accuracy: rows are "
            "the key's depth in the sequence from 0% (first token) to 100% (just "
            "before the question), columns the sequence length from L to 16 L. "
            "Each cell prints its mean accuracy over three seeds in percent, on a "
            "dark-blue (0) to yellow (100) scale; the learned model's cells past "
            "L are empty, marked with a dash. Sinusoidal finds almost nothing past L, "
            "RoPE fades from 2 L and finds almost nothing from 8 L, and ALiBi "
            "keeps finding the keys planted just "
            "before the question at every length while losing those far back."
        ),
    ),
    FigureSpec(
        slug="lab-passkey-rope",
        draw=passkey_grids,
        params={"names": ROPE_GRIDS, "columns": 3},
        phone_params={"columns": 2},
        alt=(
            "Nine passkey heatmaps, depth by length as in the heatmaps of the "
            "five schemes, for the RoPE model, in reading order (three to a row on "
            "a wide screen, two on a phone): unchanged, with position "
            "interpolation, with NTK-aware scaling, with dynamic NTK, with YaRN "
            "and with Llama 3.1's rule, all zero-shot; then after a short "
            "fine-tune at 4 L, plain, with PI and with YaRN. Each cell prints its "
            "mean accuracy in percent. At 16 L only zero-shot YaRN still finds "
            "most keys overall, though few planted just before the question; "
            "dynamic NTK and Llama 3.1 find under a third, PI and NTK-aware few, "
            "unchanged RoPE almost none. Fine-tuned PI misses most keys even at L."
        ),
    ),
]
