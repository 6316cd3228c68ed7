"""mkdocs-macros entry point: the names a page can use, listed explicitly.

Pages opt in with ``render_macros: true`` in their front matter. In a page:

- ``{{ fixed(x, 4) }}`` formats a number to 4 decimals, ``{{ count(x) }}`` rounds
  to a whole number with thousands separators (``posenc_docs.pages.format``);
- the library modules (``sinusoidal``, ``rope``, ``alibi``, ``scaling``,
  ``learned``, ``attention``, ``mrope``, ``windows``, ``temperature``), the
  page-support modules (``part1``, ``part2_basics``, ``part2_extension``,
  ``pitfalls``, ``models``, ``part3_axes``, ``part3_windows``, ``part3_nope``)
  and ``lab``;
- ``{{ figure("slug") }}`` shows a figure in its light and dark variants, with its
  alt text.
"""

import posixpath

from posenc_docs import (
    alibi,
    attention,
    lab,
    learned,
    mrope,
    rope,
    scaling,
    sinusoidal,
    temperature,
    windows,
)
from posenc_docs.figures.spec import THEMES, figure_path
from posenc_docs.pages import (
    models,
    part1,
    part2_basics,
    part2_extension,
    part3_axes,
    part3_nope,
    part3_windows,
    pitfalls,
)
from posenc_docs.pages.format import count, fixed

NAMESPACE = {
    "sinusoidal": sinusoidal,
    "learned": learned,
    "rope": rope,
    "alibi": alibi,
    "scaling": scaling,
    "attention": attention,
    "mrope": mrope,
    "windows": windows,
    "temperature": temperature,
    "part1": part1,
    "part2_basics": part2_basics,
    "part2_extension": part2_extension,
    "pitfalls": pitfalls,
    "part3_axes": part3_axes,
    "part3_windows": part3_windows,
    "part3_nope": part3_nope,
    "models": models,
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

    @env.macro
    def figure(slug: str) -> str:
        return figure_markdown(slug, env.page.file.src_uri)
