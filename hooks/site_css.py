"""MkDocs hook: Material's stylesheet without the rules that nothing on the site uses.

Material's `main.css` (138 kB, 23 kB gzip, render-blocking on every page) styles
every feature Material has: content tabs, keyboard keys, tags, feedback, versions,
annotations. After the build, `unused_css` keeps each rule whose classes could all
be present on some page of this site, where a class counts as present if

- a page's `class` attribute names it (every HTML file of the site), or
- a script could add it: the class is a word of a shipped script or JSON file or
  of a page's inline scripts, or starts with such a word ending in `-` or `_` (a
  class built by concatenation, as `"md-nav__link--" + state`).

Custom properties named in any of those texts or in the site's other stylesheets
(the palette's read Material's) count as read. The result is still one file for
every page, now named by its content, so a reader's cached copy is never a stale
one; each page's link is rewritten to it.
"""

import functools
import hashlib
import re
from pathlib import Path

import unused_css

SCRIPT = re.compile(r"<script\b[^>]*>(.*?)</script>", re.DOTALL)
WORD = re.compile(r"[A-Za-z_][\w-]*")
CSS_CLASS = re.compile(r"\.(-?[A-Za-z_][\w-]*)")
CUSTOM_PROPERTY = re.compile(r"--[\w-]+")


def scripts_of(site: Path, pages: list[str]) -> str:
    """The text of every script and JSON file of the site and of the pages' inline
    scripts."""
    files = sorted([*site.rglob("*.js"), *site.rglob("*.json")])
    inline = [script for page in pages for script in SCRIPT.findall(page)]
    return "\n".join([*(f.read_text(encoding="utf-8") for f in files), *inline])


def present_classes(css: str, pages: list[str], scripts: str) -> set[str]:
    """The classes of ``css`` that the pages name or the scripts could add."""
    classes = set().union(*map(_named_classes, pages))
    words = set(WORD.findall(scripts))
    prefixes = tuple(w for w in words if len(w) > 3 and w[-1] in "-_")
    unnamed = set(CSS_CLASS.findall(css)) - classes
    return (
        classes
        | (unnamed & words)
        | {name for name in unnamed - words if name.startswith(prefixes)}
    )


# mkdocs serve: most pages come back unchanged, as equal strings
_named_classes = functools.lru_cache(maxsize=256)(unused_css.page_classes)


def for_site(css: str, pages: list[str], scripts: str, other_css: str) -> str:
    """``css`` without what can apply to none of ``pages``, scripts included; the
    custom properties named by the scripts, pages or ``other_css`` stay."""
    read = CUSTOM_PROPERTY.findall("\n".join([scripts, other_css, *pages]))
    return unused_css.for_classes(css, present_classes(css, pages, scripts), read)


def on_post_build(config):
    site = Path(config.site_dir)
    (stylesheet,) = (site / "assets" / "stylesheets").glob("main.*.min.css")
    pages = {path: path.read_text(encoding="utf-8") for path in site.rglob("*.html")}
    html = [*pages.values()]
    others = "\n".join(
        path.read_text(encoding="utf-8")
        for path in sorted(site.rglob("*.css"))
        if path != stylesheet
    )
    css = stylesheet.read_text(encoding="utf-8")
    css = for_site(css, html, scripts_of(site, html), others)
    digest = hashlib.sha256(css.encode()).hexdigest()[:8]
    pruned = stylesheet.with_name(f"main.{digest}.min.css")
    stylesheet.unlink()
    pruned.write_text(css, encoding="utf-8")
    for path, text in pages.items():
        path.write_text(text.replace(stylesheet.name, pruned.name), encoding="utf-8")
