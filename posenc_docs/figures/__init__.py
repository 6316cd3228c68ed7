"""Build-time figures: one pure function per figure, each returning a matplotlib Figure.

Each page group's module (``part1``, ``part2_basics``, ...) lists what it draws in
its own ``FIGURES``; :data:`FIGURES` here joins them. The MkDocs hook renders each
entry in a light and a dark variant with :func:`render` and adds them to the site in
memory.
"""

import importlib
import pkgutil

from posenc_docs.figures.spec import THEMES, FigureSpec, figure_path, to_svg

__all__ = ["BY_SLUG", "FIGURES", "THEMES", "FigureSpec", "figure_path", "render"]
__all__ += ["to_svg"]


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
