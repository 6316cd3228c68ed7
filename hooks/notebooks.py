"""MkDocs hook: what mkdocs-jupyter's notebook pages need before they ship.

Brittle on purpose and isolated here: each pattern must match, or the build stops
saying which one no longer does (mkdocs-jupyter changed its HTML).
"""

import itertools
import re

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


def on_post_page(output, page, config):
    if page.file.src_uri.startswith("notebooks/"):
        return clean_notebook_html(output)
    return output
