"""What a figure is, how it becomes bytes, and where the site serves it.

The hooks import this contract (themes, URLs, SVG bytes) rather than restating it.
"""

import io
from collections.abc import Callable
from dataclasses import dataclass, field

THEMES = ("light", "dark")


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the site: how to draw it and what it shows, for alt text."""

    slug: str
    draw: Callable
    alt: str
    params: dict = field(default_factory=dict)


def figure_path(slug: str, theme: str) -> str:
    """The figure's path inside the built site, e.g. ``figures/x-light.svg``."""
    if theme not in THEMES:
        raise ValueError(f"theme must be one of {THEMES}, got {theme!r}")
    return f"figures/{slug}-{theme}.svg"


def to_svg(fig) -> bytes:
    """Deterministic SVG bytes: no date, no creator, fixed id hash salt."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    with plt.rc_context({"svg.hashsalt": "posenc-docs", "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return buffer.getvalue()
