"""MkDocs hook: what mkdocs-jupyter's notebook pages need before they ship.

Brittle on purpose and isolated here: each pattern must match, or the build stops
saying which one no longer does (mkdocs-jupyter changed its HTML).
"""

import hashlib
import itertools
import posixpath
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

NOTEBOOK_CRUFT = [  # what mkdocs-jupyter adds that this site must not ship
    r"<!-- Load mathjax -->\s*<script src=\"\">\s*</script>",  # empty MathJax loader
    r"<!-- MathJax configuration -->\s*<script type=\"text/x-mathjax-config\">"
    r".*?</script>",
    r"<script type=\"module\">(?:(?!</script>).)*?cdnjs\.cloudflare\.com.*?</script>",
]
# Where the kernel happened to flush stdout mid-cell: two adjacent prompt-less text
# outputs. Joining them (what nbconvert's coalesce_streams does) makes pages stable.
STREAM_BREAK = re.compile(
    r'</pre>\n</div>\n</div>\n<div class="jp-OutputArea-child">\n'
    r'<div class="jp-OutputPrompt jp-OutputArea-prompt"></div>\n'
    r'<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="text/plain"'
    r' tabindex="0">\n<pre>'
)


def clean_notebook_html(html: str) -> str:
    """Drop MathJax and CDN mermaid loaders; number cells so builds are reproducible.

    KaTeX renders notebook math like every other page's. Jupytext gives each cell a
    random id on every read, so ids become ``cell-1``, ``cell-2``, ... in page order;
    stdout split into several outputs by flush timing is joined into one.
    """
    for pattern in NOTEBOOK_CRUFT:
        html, found = re.subn(pattern, "", html, flags=re.DOTALL)
        if not found:
            raise PluginError(f"notebook page changed shape: {pattern!r} not found")
    numbers = itertools.count(1)
    html = re.sub(
        r'id="cell-id=[0-9a-f]+"', lambda m: f'id="cell-{next(numbers)}"', html
    )
    return STREAM_BREAK.sub("", html)


INLINE_STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.DOTALL)


def shared_stylesheet(html: str, page_url: str) -> tuple[str, str, str]:
    """Move a notebook page's inline ``<style>`` blocks into one cacheable file.

    Returns the page with a ``<link>`` where the first block was, the site path
    of the stylesheet (named by a hash of its content) and the stylesheet itself.
    """
    css = "\n".join(INLINE_STYLE.findall(html))
    if not css:
        raise PluginError("notebook page changed shape: no inline <style> found")
    digest = hashlib.sha256(css.encode()).hexdigest()[:12]
    path = f"assets/stylesheets/notebook.{digest}.css"
    href = posixpath.relpath(path, posixpath.dirname(page_url + "x") or ".")
    link = f'<link rel="stylesheet" href="{href}">'
    blocks = iter([link])
    html = INLINE_STYLE.sub(lambda _: next(blocks, ""), html)
    return html, path, css


_stylesheets: dict[str, str] = {}


def on_page_content(html, page, config, files):
    # Before the search plugin reads the page: its text must not depend on flushes.
    if page.file.src_uri.startswith("notebooks/"):
        return STREAM_BREAK.sub("", html)
    return html


def on_post_page(output, page, config):
    if not page.file.src_uri.startswith("notebooks/"):
        return output
    output, path, css = shared_stylesheet(clean_notebook_html(output), page.url)
    _stylesheets[path] = css
    return output


def on_post_build(config):
    for path, css in _stylesheets.items():
        target = Path(config.site_dir) / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(css, encoding="utf-8")
