"""Build-time figures: one pure function per figure, each returning a matplotlib Figure.

Each submodule lists what it draws in its own ``FIGURES``; :data:`FIGURES` here joins
them. The MkDocs hook renders each entry in a light and a dark variant with
:func:`to_svg` and adds them to the site in memory.
"""

import importlib
import io
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class FigureSpec:
    """One figure of the site: how to draw it and what it shows, for alt text."""

    slug: str
    draw: Callable
    alt: str
    params: dict = field(default_factory=dict)


def to_svg(fig) -> bytes:
    """Deterministic SVG bytes: no date, no creator, fixed id hash salt."""
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    with plt.rc_context({"svg.hashsalt": "posenc-docs", "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return buffer.getvalue()


def _collect() -> list[FigureSpec]:
    """Every submodule's ``FIGURES``, in module-name order."""
    specs = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        specs.extend(getattr(module, "FIGURES", []))
    return specs


FIGURES = _collect()
BY_SLUG = {spec.slug: spec for spec in FIGURES}


def render(slug: str, theme: str) -> bytes:
    """SVG bytes of figure ``slug`` in ``theme`` (importable by worker processes)."""
    spec = BY_SLUG[slug]
    return to_svg(spec.draw(**spec.params, theme=theme))
