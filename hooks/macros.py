"""mkdocs-macros entry point: the names a page can use, listed explicitly.

Pages opt in with ``render_macros: true`` in their front matter. In a page:

- ``{{ fixed(x, 4) }}`` formats a number to 4 decimals, ``{{ count(x) }}`` rounds
  to a whole number with thousands separators, ``{{ percent(share, 1) }}`` writes a
  share as a percentage and ``{{ mantissa(x, -5, 1) }}`` the number before
  x 10^-5 (``posenc_docs.pages.format``);
- the library modules (``sinusoidal``, ``rope``, ``alibi``, ``scaling``,
  ``learned``, ``attention``, ``relative_bias``, ``partial_rotary``, ``mrope``,
  ``windows``, ``temperature``), the page-support modules (``part1``,
  ``part2_basics``, ``part2_extension``, ``pitfalls``, ``part3_relative``,
  ``part3_base``, ``part3_partial``, ``part3_nope``, ``part3_windows``,
  ``part3_axes``, ``models``, ``install``), ``quoted`` (figures copied from papers,
  each with its table) and ``lab``;
- ``{{ figure("slug") }}`` shows a figure in its light and dark variants, with its
  alt text as a caption numbered "Figure N" in page order; ``{{ figref("slug") }}``
  writes "Figure N" for a figure on the same page, linked to it;
  ``{{ widget_attributes("name") }}`` writes a widget's ``data-*`` start values,
  taken from the parameters of the figures it replaces.

Each ``{{ ... }}`` value is cached by ``hooks/build_cache.py`` (its expression, the
``{% set %}`` lines it reads and the sources of the modules it names), and a module
is imported only when a value that names it is computed.
"""

import html
import importlib
import posixpath
from pathlib import Path

import build_cache  # hooks/build_cache.py, loaded first as a hook (tests: sys.path)

from posenc_docs.figures.spec import PHONE_MEDIA, figure_path
from posenc_docs.pages.format import count, fixed, mantissa, percent

LIBRARY = [
    "sinusoidal", "learned", "rope", "alibi", "scaling", "attention", "relative_bias",
    "partial_rotary", "mrope", "windows", "temperature", "lab",
]  # fmt: skip
PAGES = [
    "part1", "part2_basics", "part2_extension", "pitfalls", "part3_relative",
    "part3_base", "part3_partial", "part3_nope", "part3_windows", "part3_axes",
    "models", "install", "quoted",
]  # fmt: skip
MODULES = {name: f"posenc_docs.{name}" for name in LIBRARY} | {
    name: f"posenc_docs.pages.{name}" for name in PAGES
}  # name in a page -> the module it stands for
FIGURES = "posenc_docs.figures"
# Imported on first use, so a build whose macro values are all cached imports none.
NAMESPACE = {name: build_cache.LazyModule(module) for name, module in MODULES.items()}


def figure_numbers(markdown: str) -> dict[str, int]:
    """Slug -> "Figure N" number of each figure a page shows, in page order."""
    numbers: dict[str, int] = {}
    for slug in build_cache.FIGURE_CALL.findall(markdown):
        numbers.setdefault(slug, len(numbers) + 1)
    return numbers


def figure_markdown(slug: str, page_url: str, number: int) -> str:
    """HTML for figure ``number`` of a page: fetches only the variant on screen.

    A ``<figure>`` with a numbered caption (the alt text) whose picture is a link
    to the full-size light SVG. The caption's copy of the alt text is hidden from
    screen readers, which read it once, as the image's alt. The ``<picture>``
    holds the light SVG in ``<img>`` and ``<source>``s for print (light), the
    dark scheme and phones. The dark ones match nothing in the HTML, since a page
    without JavaScript stays light; the script in ``overrides/main.html`` turns
    them on when the page shows the dark scheme (the OS preference's on a first
    visit, else the reader's choice).
    ``hooks/build_assets.py`` adds the size.
    """
    BY_SLUG = build_cache.FIGURE_SPECS or importlib.import_module(FIGURES).BY_SLUG
    if slug not in BY_SLUG:
        raise KeyError(f"no figure named {slug!r}; known: {sorted(BY_SLUG)}")
    alt = html.escape(BY_SLUG[slug].alt, quote=True)
    here = posixpath.dirname(page_url + "x") or "."  # raw HTML: relative to the URL

    def url(theme, phone=False):
        return posixpath.relpath(figure_path(slug, theme, phone), here)

    off = "not all"  # until overrides/main.html finds the page dark
    return (
        f'<figure class="posenc-fig" id="fig-{slug}">'
        f'<a class="posenc-zoom" href="{url("light")}" '
        f'title="Figure {number} at full size">'
        f'<picture class="posenc-figure">'
        f'<source srcset="{url("light")}" media="print">'  # paper is white
        f'<source srcset="{url("dark", True)}" media="{off}"'
        f' data-theme="dark" data-width="{PHONE_MEDIA}">'
        f'<source srcset="{url("dark")}" media="{off}" data-theme="dark">'
        f'<source srcset="{url("light", True)}" media="{PHONE_MEDIA}">'
        f'<img src="{url("light")}" alt="{alt}" loading="lazy" decoding="async">'
        f"</picture></a>"
        f"<figcaption><strong>Figure {number}.</strong> "
        f'<span aria-hidden="true">{alt}</span></figcaption>'  # the alt says it
        f"</figure>"
    )


def figure_reference(slug: str, numbers: dict[str, int]) -> str:
    """Prose text "Figure N", linked to a figure that must be on the same page."""
    if slug not in numbers:
        raise KeyError(f"figref({slug!r}): this page shows {sorted(numbers)}")
    return f"[Figure {numbers[slug]}](#fig-{slug})"


def define_env(env):
    """Register the namespace, the formatters and ``figure``; cache the values."""
    env.variables.update(NAMESPACE)
    env.macro(fixed)
    env.macro(count)
    env.macro(percent)
    env.macro(mantissa)

    @env.macro
    def widget_attributes(name: str) -> str:
        drawn = build_cache.WIDGET_ATTRIBUTES
        return (
            drawn[name]
            if drawn
            else importlib.import_module(FIGURES).widget_attributes(name)
        )

    def numbers() -> dict[str, int]:
        return figure_numbers(env.page.file.content_string)

    @env.macro
    def figure(slug: str) -> str:
        return figure_markdown(slug, env.page.url, numbers()[slug])

    @env.macro
    def figref(slug: str) -> str:
        return figure_reference(slug, numbers())

    store = build_cache.Store(build_cache.cache_dir(env.conf) / "macros")
    build_cache.cache_macros(env, MODULES, Path(__file__), store)
