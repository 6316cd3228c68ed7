"""mkdocs-macros entry point: the names a page can use, listed explicitly.

Pages opt in with ``render_macros: true`` in their front matter. In a page:

- ``{{ fixed(x, 4) }}`` formats a number to 4 decimals, ``{{ count(x) }}`` rounds
  to a whole number with thousands separators, ``{{ percent(share, 1) }}`` writes a
  share as a percentage and ``{{ mantissa(x, -5, 1) }}`` the number before
  x 10^-5 (``posenc_docs.pages.format``);
- the library modules (``sinusoidal``, ``rope``, ``alibi``, ``scaling``,
  ``learned``, ``attention``), the page-support modules (``part1``,
  ``part2_basics``, ``part2_extension``, ``pitfalls``, ``models``, ``install``),
  ``quoted`` (figures copied from papers, each with its table) and ``lab``;
- ``{{ figure("slug") }}`` shows a figure in its light and dark variants, with its
  alt text; ``{{ widget_attributes("name") }}`` writes a widget's ``data-*`` start
  values, taken from the parameters of the figures it replaces.
"""

import posixpath

from posenc_docs import alibi, attention, lab, learned, rope, scaling, sinusoidal
from posenc_docs.figures.spec import THEMES, figure_path
from posenc_docs.pages import (
    install,
    models,
    part1,
    part2_basics,
    part2_extension,
    pitfalls,
    quoted,
)
from posenc_docs.pages.format import count, fixed, mantissa, percent

NAMESPACE = {
    "sinusoidal": sinusoidal,
    "learned": learned,
    "rope": rope,
    "alibi": alibi,
    "scaling": scaling,
    "attention": attention,
    "part1": part1,
    "part2_basics": part2_basics,
    "part2_extension": part2_extension,
    "pitfalls": pitfalls,
    "models": models,
    "install": install,
    "quoted": quoted,
    "lab": lab,
}


def figure_markdown(slug: str, page_src_uri: str) -> str:
    """Markdown for both theme variants of a figure, linked relative to the page."""
    from posenc_docs.figures import BY_SLUG

    if slug not in BY_SLUG:
        raise KeyError(f"no figure named {slug!r}; known: {sorted(BY_SLUG)}")
    alt = BY_SLUG[slug].alt
    here = posixpath.dirname(page_src_uri)
    images = []
    for theme in THEMES:
        src = posixpath.relpath(figure_path(slug, theme), here or ".")
        images.append(f"![{alt}]({src}#only-{theme}){{ loading=lazy }}")
    return "\n".join(images)


def define_env(env):
    """Register the namespace, the number formatters and ``figure``."""
    env.variables.update(NAMESPACE)
    env.macro(fixed)
    env.macro(count)
    env.macro(percent)
    env.macro(mantissa)

    @env.macro
    def widget_attributes(name: str) -> str:
        from posenc_docs.figures import widget_attributes

        return widget_attributes(name)

    @env.macro
    def figure(slug: str) -> str:
        return figure_markdown(slug, env.page.file.src_uri)
