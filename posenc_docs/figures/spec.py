"""What a figure is, how it becomes bytes, where the site serves it, and its size.

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


def svg_size(svg: bytes) -> tuple[int, int]:
    """CSS pixel width and height of matplotlib SVG bytes (``width="504pt"``...)."""
    head = svg[:1000].decode()
    points = [float(head.split(f'{name}="', 1)[1].split("pt", 1)[0])
              for name in ("width", "height")]  # fmt: skip
    return tuple(round(value * 4 / 3) for value in points)


def to_svg(fig) -> bytes:
    """Deterministic SVG bytes: no date, no creator, fixed id hash salt."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    with plt.rc_context({"svg.hashsalt": "posenc-docs", "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return buffer.getvalue()
