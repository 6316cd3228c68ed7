"""mkdocs-macros entry point: numbers and figures computed at build time.

Pages opt in with ``render_macros: true`` in their front matter. In a page:

- ``{{ fixed(x, 4) }}`` formats a number to 4 decimals, ``{{ count(x) }}`` rounds
  to a whole number with thousands separators;
- every public module of ``posenc_docs`` is there by its short name
  (``sinusoidal``, ``rope``, ``alibi``, ``scaling``, ...), so
  ``{{ fixed(sinusoidal.offset_similarity(1, 8), 4) }}`` is live;
- ``{{ figure("slug") }}`` shows a figure from ``posenc_docs.figures.FIGURES`` in
  its light and dark variants, with its alt text.
"""

import importlib
import pkgutil
import posixpath

import posenc_docs

NOT_FOR_PAGES = {"bench", "examples", "figures"}


def package_modules() -> dict:
    """The package's public modules by short name (``sinusoidal``, ``rope``, ...)."""
    names = [m.name for m in pkgutil.iter_modules(posenc_docs.__path__)]
    return {
        name: importlib.import_module(f"posenc_docs.{name}")
        for name in names
        if not name.startswith("_") and name not in NOT_FOR_PAGES
    }


def fixed(value, places: int = 2) -> str:
    """``value`` to ``places`` decimals, thousands separated, with a true minus."""
    return f"{float(value):,.{places}f}".replace("-", "\N{MINUS SIGN}")


def count(value) -> str:
    """``value`` rounded to a whole number, with thousands separators."""
    return f"{round(float(value)):,}".replace("-", "\N{MINUS SIGN}")


def figure_markdown(slug: str, page_src_uri: str) -> str:
    """Markdown for both theme variants of a figure, linked relative to the page."""
    from posenc_docs.figures import BY_SLUG

    if slug not in BY_SLUG:
        raise KeyError(f"no figure named {slug!r}; known: {sorted(BY_SLUG)}")
    alt = BY_SLUG[slug].alt
    here = posixpath.dirname(page_src_uri)
    images = []
    for theme in ("light", "dark"):
        src = posixpath.relpath(f"figures/{slug}-{theme}.svg", here or ".")
        images.append(f"![{alt}]({src}#only-{theme}){{ loading=lazy }}")
    return "\n".join(images)


def define_env(env):
    """Register the helpers, the package modules and ``figure`` with mkdocs-macros."""
    env.variables.update(package_modules())
    env.macro(fixed)
    env.macro(count)

    @env.macro
    def figure(slug: str) -> str:
        return figure_markdown(slug, env.page.file.src_uri)
