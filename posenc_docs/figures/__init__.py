"""Build-time figures: one pure function per figure, each returning a matplotlib Figure.

Each page group's module (``part1``, ``part2_basics``, ...) lists what it draws in
its own `FIGURES`; `FIGURES` here joins them. The MkDocs hook renders each
entry in a light and a dark variant with `render` and adds them to the site in
memory.
"""

import functools
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


@functools.cache
def _registry() -> dict:
    """FIGURES, BY_SLUG and WIDGETS (widget name -> its start values, taken from
    the figures it replaces), read from every figure module."""
    modules = list(_modules())
    figures = [spec for module in modules for spec in getattr(module, "FIGURES", [])]
    widgets = {
        name: start
        for module in modules
        for name, start in getattr(module, "WIDGETS", {}).items()
    }
    return {
        "FIGURES": figures,
        "BY_SLUG": {spec.slug: spec for spec in figures},
        "WIDGETS": widgets,
    }


def __getattr__(name: str):
    """The registry is built on first use: importing ``figures.spec`` (the hooks'
    contract) does not import every figure module, nor torch."""
    if name not in ("FIGURES", "BY_SLUG", "WIDGETS"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return _registry()[name]


def _attribute(value) -> str:
    """A start value as the widget reads it: 4.0 -> "4", 0.5 -> "0.5"."""
    return str(int(value)) if float(value).is_integer() else str(value)


def widget_attributes(name: str) -> str:
    """HTML attributes of widget ``name``: ``data-widget`` and its start values."""
    start = _registry()["WIDGETS"][name]()
    values = (f'data-{key}="{_attribute(v)}"' for key, v in start.items())
    return " ".join([f'data-widget="{name}"', *values])


def draw(slug: str, theme: str, phone: bool = False):
    """The matplotlib figure ``slug`` in ``theme``, its phone variant if ``phone``."""
    spec = _registry()["BY_SLUG"][slug]
    params = {**spec.params, **spec.phone_params} if phone else spec.params
    fig = plain_log_ticks(spec.draw(**params, theme=theme))
    return for_phone(fig) if phone else fig


def render(slug: str, theme: str, phone: bool = False) -> bytes:
    """SVG bytes of figure ``slug`` in ``theme`` (importable by worker processes)."""
    return to_svg(draw(slug, theme, phone))
