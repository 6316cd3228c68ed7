"""Shared look for every figure: light and dark variants, colour-blind-safe colours."""

from contextlib import contextmanager

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import patheffects  # noqa: E402

from posenc_docs.figures.spec import DATA_COLOURS, THEME_COLOURS  # noqa: E402

# ColorBrewer RdBu: colour-blind safe; negative blue, positive red.
DIVERGING = "RdBu_r"

# Text on a data cell, in both themes (neither is a theme or data colour, so the
# dark variant keeps them): on any colour one of the two has at least 4.58:1.
CELL_INKS = ("#000000", "#ffffff")
# A line drawn across a heat map: white, then black, on each side of its colour,
# so that one of them stands out on any cell (a data colour alone may not: the
# light brown on RdBu's darkest red has 1.75:1).
ON_ANY_CELL = [
    patheffects.Stroke(linewidth=6.5, foreground=CELL_INKS[1]),
    patheffects.Stroke(linewidth=4.5, foreground=CELL_INKS[0]),
    patheffects.Normal(),
]
# Masked cells of an image are see-through: the axes behind them is painted in the
# theme's grid colour, a vector shape that follows the theme.
SEE_THROUGH = (0.0, 0.0, 0.0, 0.0)


@contextmanager
def themed(theme: str):
    """Matplotlib settings for ``theme`` ("light" or "dark"); transparent.

    Its data colours are ``spec.DATA_COLOURS[theme]``, read by ``data_colour``."""
    if theme not in THEME_COLOURS:
        choices = sorted(THEME_COLOURS)
        raise ValueError(f"theme must be one of {choices}, got {theme!r}")
    c = THEME_COLOURS[theme]
    rc = {
        "figure.facecolor": "none",
        "axes.facecolor": "none",
        "savefig.facecolor": "none",
        "text.color": c["fg"],
        "axes.labelcolor": c["fg"],
        "axes.edgecolor": c["muted"],
        "xtick.color": c["fg"],
        "ytick.color": c["fg"],
        "grid.color": c["grid"],
        "axes.prop_cycle": matplotlib.cycler(color=DATA_COLOURS[theme]),
        "font.size": 10,
        "legend.frameon": False,
    }
    with plt.rc_context(rc):
        yield c


def data_colour(k: int) -> str:
    """Data colour k (mod 8) of the theme ``themed`` has set.

    Resolved now: a line would resolve "Ck" only when drawn, after the theme's
    context. In a raster (``imshow``), which the dark variant cannot recolour, use
    a colour both themes share (2, 3 or 5).
    """
    colours = tuple(plt.rcParams["axes.prop_cycle"].by_key()["color"])
    if colours not in DATA_COLOURS.values():
        raise RuntimeError("data_colour is for use inside a `with themed(theme)`")
    return colours[k % len(colours)]


def ink_on(cell) -> str:
    """The one of CELL_INKS with more contrast on the RGBA colour ``cell``.

    With WCAG's relative luminance L of the cell, black's contrast is
    (L + 0.05) / 0.05 and white's 1.05 / (L + 0.05): black wins when L > 0.179,
    where both are 4.58.
    """
    srgb = np.asarray(cell[:3], dtype=float)
    linear = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    luminance = linear @ [0.2126, 0.7152, 0.0722]
    return CELL_INKS[0] if (luminance + 0.05) ** 2 > 1.05 * 0.05 else CELL_INKS[1]


def log_binned(values: np.ndarray, n_bins: int):
    """Centre, min, mean and max of ``values[1:]`` in log-spaced bins of the index:
    a long curve at a few points per pixel, its extremes kept."""
    edges = np.unique(np.geomspace(1, len(values), n_bins + 1).astype(int))
    chunks = [values[a:b] for a, b in zip(edges[:-1], edges[1:], strict=True)]
    centre = np.sqrt(edges[:-1] * np.maximum(edges[1:] - 1, edges[:-1]))
    stats = np.array([(c.min(), c.mean(), c.max()) for c in chunks])  # (bins, 3)
    return centre, stats[:, 0], stats[:, 1], stats[:, 2]
