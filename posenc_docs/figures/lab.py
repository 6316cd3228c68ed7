"""Figures of the lab, drawn from the committed ``posenc_docs/lab/results.json``."""

import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from posenc_docs.figures.spec import FigureSpec
from posenc_docs.figures.style import OKABE_ITO, themed
from posenc_docs.lab import paper
from posenc_docs.lab.results import LABELS, load_results

# One colour and marker per scheme, the same in every panel.
STYLE = {
    "none": ("#999999", "v"),
    "learned": (OKABE_ITO[1], "s"),
    "sinusoidal": (OKABE_ITO[5], "o"),
    "rope": (OKABE_ITO[0], "D"),
    "alibi": (OKABE_ITO[2], "^"),
    "T5 bias": (OKABE_ITO[3], "P"),
    "pi": (OKABE_ITO[4], "<"),
    "ntk": (OKABE_ITO[3], "P"),
    "yarn": (OKABE_ITO[1], ">"),
}


def _curve(ax, name, lengths, values, label):
    colour, marker = STYLE[name]
    ax.plot(lengths, values, color=colour, marker=marker, label=label, lw=1.8, ms=5)


def _our_curves(ax, results, names, colours):
    train_len = results["config"]["train_len"]
    runs = {**results["runs"], **results["rope_scaled"]}
    for name in names:
        rows = [r for r in runs[name]["eval"] if "error" not in r]
        _curve(
            ax,
            name,
            [r["length"] / train_len for r in rows],
            [r["perplexity"] for r in rows],
            LABELS[name],
        )
        failed = [r["length"] / train_len for r in runs[name]["eval"] if "error" in r]
        if failed:  # a cross where the next number would be, and the error's name
            where = (failed[0], rows[-1]["perplexity"])
            ax.plot(*where, marker="x", color=STYLE[name][0], ms=7, mew=2)
            ax.annotate("IndexError", where, xytext=(6, 5), textcoords="offset points",
                        color=STYLE[name][0], fontsize=9, va="bottom")  # fmt: skip
    floor = results["source"]["floor"]
    ax.plot(
        [r["length"] / train_len for r in floor],
        [r["perplexity"] for r in floor],
        ls="--",
        color=colours["muted"],
        lw=1.2,
        label="best possible",
    )


def _axes(ax, title, xlabel):
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    ax.xaxis.set_major_formatter(plain)
    ax.yaxis.set_major_locator(LogLocator(subs=(1, 2, 5)))
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.grid(True, which="major", lw=0.5)


def paper_vs_lab(*, theme: str):
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
        schemes = ["none", "learned", "sinusoidal", "rope", "alibi"]
        _our_curves(bottom, results, schemes, colours)
        train_len = results["config"]["train_len"]
        _axes(
            bottom,
            f"This lab: Markov source, L = {train_len}",
            "evaluation length / training length L",
        )
        for ax in (top, bottom):
            ax.set_ylabel("perplexity (log)")
            ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


def rope_scalings(*, theme: str):
    """The trained RoPE model at each length, unchanged and with three extensions."""
    results = load_results()
    with themed(theme) as colours:
        fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
        _our_curves(ax, results, ["rope", *results["config"]["rope_scalings"]], colours)
        _axes(
            ax,
            "One RoPE model, zero-shot context extension (s = length / L)",
            "evaluation length / training length L",
        )
        ax.set_ylabel("perplexity (log scale)")
        ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


FIGURES = [
    FigureSpec(
        slug="lab-paper-vs-lab",
        draw=paper_vs_lab,
        alt=(
            "Two log-log panels, one above the other, of perplexity against "
            "evaluation length over training length. Top, the ALiBi paper's "
            "WikiText-103 numbers: sinusoidal climbs steeply, rotary more slowly, "
            "T5 bias rises late and ALiBi stays flat. Bottom, this lab's tiny models "
            "on a Markov source: sinusoidal jumps at twice L, RoPE follows a step "
            "later, ALiBi stays flat just above the dashed best-possible line, the "
            "model without positions starts high and climbs, and the learned table "
            "ends at L with an IndexError."
        ),
    ),
    FigureSpec(
        slug="lab-rope-scalings",
        draw=rope_scalings,
        alt=(
            "Perplexity of one trained RoPE model from L to 16 L on log axes. "
            "Position interpolation climbs fastest, above the unchanged model; "
            "NTK-aware scaling stays level at 2 L and then climbs; YaRN stays close "
            "to the dashed best-possible line up to 4 L and rises least by 16 L."
        ),
    ),
]
