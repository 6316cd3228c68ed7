"""What a figure is, how it becomes bytes, where the site serves it, and its size.

The hooks import this contract (themes, URLs, SVG bytes) rather than restating it.
"""

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field

THEMES = ("light", "dark")
# Text, axes and grid colours: figures take them from ``style.themed``.
THEME_COLOURS = {
    "light": {"fg": "#1f1f1f", "muted": "#6b6b6b", "grid": "#d9d9d9"},
    "dark": {"fg": "#e6e6e6", "muted": "#a0a0a0", "grid": "#4a4a4a"},
}
# Data colours, "C0" to "C7" in a figure (``style.themed`` makes them the colour
# cycle). Dark: Okabe & Ito's seven (2008) and a grey, each at least 3:1 against
# the dark page; sky blue comes first, since Okabe & Ito's blue (3.1:1 there) made
# the thin and dashed first line of a figure hard to see (the widgets do the same).
# Light: the same where they reach 3:1 against white; Okabe & Ito's orange, sky
# blue and yellow (2.3, 2.3 and 1.3:1) give way to brown, indigo and near-black,
# and the grey to a darker one, which keep every pair at least 15 CIELAB units
# apart under protanopia, deuteranopia and tritanopia, as the seven are
# (``tests/test_figures.py`` checks both).
DATA_COLOURS = {
    "light": ("#0072B2", "#7A4A00", "#009E73", "#CC79A7",
              "#3A3A98", "#D55E00", "#262626", "#545454"),
    "dark": ("#56B4E9", "#E69F00", "#009E73", "#CC79A7",
             "#0072B2", "#D55E00", "#F0E442", "#CCCCCC"),
}  # fmt: skip
# The page a figure sits on: Material's default and slate backgrounds.
PAGE_BACKGROUNDS = {"light": "#ffffff", "dark": "#1e2129"}
_TO_DARK = {
    light.lower(): dark.lower()
    for light, dark in zip(
        [*THEME_COLOURS["light"].values(), *DATA_COLOURS["light"]],
        [*THEME_COLOURS["dark"].values(), *DATA_COLOURS["dark"]],
        strict=True,
    )
    if light != dark
}
_LIGHT_COLOUR = re.compile("|".join(_TO_DARK), re.IGNORECASE)
# The phone variant: drawn narrower with no text under PHONE_MIN_FONT points, so at
# a 390 px screen (a 358 px column) text renders at >= 9 CSS px. Served below
# PHONE_MEDIA; wider screens get the desktop variant.
PHONE_WIDTH = 4.8  # inches: 345.6 pt drawn onto ~358 CSS px
PHONE_MIN_FONT = 9.5  # points
SCRIPT_SHARE = 0.7  # of its text's size, mathtext's sub- and superscripts
PHONE_MEDIA = "(max-width: 44.9375em)"  # Material's tablet-portrait breakpoint


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the site: how to draw it and what it shows, for alt text.

    ``phone_params`` override ``params`` for the phone variant (e.g. panels stacked
    rather than side by side)."""

    slug: str
    draw: Callable
    alt: str
    params: dict = field(default_factory=dict)
    phone_params: dict = field(default_factory=dict)


def figure_path(slug: str, theme: str, phone: bool = False) -> str:
    """The figure's path inside the built site, e.g. ``figures/x-light.svg``.

    The phone variant is ``figures/x-phone-light.svg``.
    """
    if theme not in THEMES:
        raise ValueError(f"theme must be one of {THEMES}, got {theme!r}")
    return f"figures/{slug}{'-phone' if phone else ''}-{theme}.svg"


def plain_log_ticks(fig):
    """Label log axes 1, 10, 100, 1k, 1M instead of 10^k: no superscripts, which
    matplotlib draws at 70 % of the tick size."""
    from matplotlib.ticker import FuncFormatter, LogFormatterSciNotation, NullFormatter

    def label(value, _):
        for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
            if value >= size:
                return f"{value / size:g}{suffix}"
        return f"{value:g}"

    for axis in (a for ax in fig.axes for a in (ax.xaxis, ax.yaxis)):
        if isinstance(axis.get_major_formatter(), LogFormatterSciNotation):
            axis.set_major_formatter(FuncFormatter(label))
            axis.set_minor_formatter(NullFormatter())
    return fig


_WORD = r"(?:\S*\$[^$]*\$\S*|\S+)"  # $math$ with what touches it, or a plain word
# On one line: "d = 64", a word and the numbers or the one capital after it ("Llama
# 3.1", "at 4 L", "(16, 24, 24)").
_UNBROKEN = re.compile(rf"{_WORD}(?: [=≈] {_WORD}| (?=\d|[A-Z](?!\w)){_WORD})*")


def _wrapped(text: str, width_pt: float, size_pt: float) -> str:
    """Break ``text`` into lines that fit ``width_pt``, never inside $math$, around
    an equals sign or before a number (`_UNBROKEN`)."""
    words = _UNBROKEN.findall(text)
    if "\n" in text or len(text) * 0.55 * size_pt <= 0.95 * width_pt:
        return text
    per_line, lines = int(0.95 * width_pt / (0.55 * size_pt)), [""]
    for word in words:
        if lines[-1] and len(lines[-1]) + 1 + len(word) > per_line:
            lines.append("")
        lines[-1] = f"{lines[-1]} {word}".strip()
    return "\n".join(lines)


def _one_or_two_columns(fig, legend):
    """Draw a figure legend (below the plot) again in at most two columns."""
    texts = legend.get_texts()
    labels = [text.get_text() for text in texts]
    ncols = 1 if max(map(len, labels)) > 28 else min(len(labels), 2)
    legend.remove()
    fig.legend(legend.legend_handles, labels, loc="outside lower center", ncols=ncols,
               fontsize=texts[0].get_fontsize(), frameon=legend.get_frame_on(),
               labelcolor=[text.get_color() for text in texts])  # fmt: skip


def for_phone(fig):
    """Redraw ``fig`` for a phone column: PHONE_WIDTH wide, no text (not even a
    mathtext subscript, 70 % of its text) under PHONE_MIN_FONT points, long text
    wrapped at the figure's edge."""
    from matplotlib.text import Text

    width, height = fig.get_size_inches()
    fig.set_size_inches(min(width, PHONE_WIDTH), height)
    for text in fig.findobj(Text):
        words = text.get_text()
        has_scripts = words.count("$") >= 2 and ("_" in words or "^" in words)
        smallest = PHONE_MIN_FONT / (SCRIPT_SHARE if has_scripts else 1)
        text.set_fontsize(max(text.get_fontsize(), smallest))
        room = text.axes.get_position().width * 0.9 if text.axes else 1.0  # share
        room *= fig.get_size_inches()[0] * 72
        text.set_text(_wrapped(text.get_text(), room, text.get_fontsize()))
    for legend in list(fig.legends):
        _one_or_two_columns(fig, legend)
    subplots_only = all(ax.get_subplotspec() is not None for ax in fig.axes)
    if fig.get_layout_engine() is None and subplots_only:
        fig.set_layout_engine("constrained")
    return fig


def svg_size(svg: bytes) -> tuple[int, int]:
    """CSS pixel width and height of matplotlib SVG bytes (``width="504pt"``...)."""
    head = svg[:1000].decode()
    points = [float(head.split(f'{name}="', 1)[1].split("pt", 1)[0])
              for name in ("width", "height")]  # fmt: skip
    return tuple(round(value * 4 / 3) for value in points)


def dark_variant(light_svg: bytes) -> bytes:
    """A figure's dark SVG from its light one: each light theme colour swapped for
    its dark counterpart, so a build draws every figure once.

    Equal to the figure drawn in the dark theme up to the names of its SVG ids
    (matplotlib hashes a marker's style into its id); ``tests/test_figures.py``
    checks that for every figure.
    """
    text = light_svg.decode()
    return _LIGHT_COLOUR.sub(lambda match: _TO_DARK[match[0].lower()], text).encode()


SVG_RC = {
    "svg.hashsalt": "posenc-docs",
    "svg.fonttype": "path",
    "figure.autolayout": False,  # so that no layout engine replaces the one removed
    "figure.constrained_layout.use": False,
}


def to_svg(fig) -> bytes:
    """Deterministic SVG bytes: no date, no creator, fixed id hash salt.

    A figure with a layout engine is laid out once, with text measured as the SVG
    backend measures it, then drawn once: ``savefig`` alone would lay it out and
    draw it twice, for the same bytes (``tests/test_figures.py`` checks that).
    """
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    buffer = io.BytesIO()
    with plt.rc_context(SVG_RC):
        if (engine := fig.get_layout_engine()) is not None:
            FigureCanvasSVG(fig)  # text measured as the SVG backend draws it
            engine.execute(fig)  # laid out once ...
            fig.set_layout_engine(None)  # ... so savefig draws once
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return buffer.getvalue()
