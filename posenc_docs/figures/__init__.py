"""Build-time figures: one pure function per figure, each returning a matplotlib Figure.

Each page group's module (``part1``, ``part2_basics``, ...) lists what it draws in
its own `FIGURES`; `FIGURES` here joins them. The MkDocs hook renders each
entry in a light and a dark variant with `render` and adds them to the site in
memory.
"""

import importlib
import pkgutil

from posenc_docs.figures.spec import (
    THEMES,
    FigureSpec,
    figure_path,
    for_phone,
    plain_log_ticks,
    to_svg,
)

__all__ = [
    "BY_SLUG",
    "FIGURES",
    "THEMES",
    "WIDGETS",
    "FigureSpec",
    "draw",
    "figure_path",
    "render",
    "to_svg",
    "widget_attributes",
]


def _modules():
    """Every figure module, in module-name order."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        yield importlib.import_module(f"{__name__}.{info.name}")


FIGURES = [spec for module in _modules() for spec in getattr(module, "FIGURES", [])]
BY_SLUG = {spec.slug: spec for spec in FIGURES}
WIDGETS = {  # widget name -> its start values, taken from the figures it replaces
    name: start
    for module in _modules()
    for name, start in getattr(module, "WIDGETS", {}).items()
}


def _attribute(value) -> str:
    """A start value as the widget reads it: 4.0 -> "4", 0.5 -> "0.5"."""
    return str(int(value)) if float(value).is_integer() else str(value)


def widget_attributes(name: str) -> str:
    """HTML attributes of widget ``name``: ``data-widget`` and its start values."""
    start = WIDGETS[name]()
    values = (f'data-{key}="{_attribute(v)}"' for key, v in start.items())
    return " ".join([f'data-widget="{name}"', *values])


def draw(slug: str, theme: str, phone: bool = False):
    """The matplotlib figure ``slug`` in ``theme``, its phone variant if ``phone``."""
    spec = BY_SLUG[slug]
    params = {**spec.params, **spec.phone_params} if phone else spec.params
    fig = plain_log_ticks(spec.draw(**params, theme=theme))
    return for_phone(fig) if phone else fig


def render(slug: str, theme: str, phone: bool = False) -> bytes:
    """SVG bytes of figure ``slug`` in ``theme`` (importable by worker processes)."""
    return to_svg(draw(slug, theme, phone))
