"""MkDocs hook: code listings with fewer elements, the same text and the same colours.

Pygments puts every token in a span. Three kinds of span change nothing a reader
sees: names (``n``), whose colour ``--md-code-hl-name-color`` is the listing's own
``--md-code-fg-color`` in both schemes; whitespace (``w``), which no stylesheet
styles; and the empty span that opens every block. They still cost the browser:
each is an element that every restyle of the page visits, and Material's start-up
restyles the whole page several times. Inside ``<pre>`` those spans become their
bare text; outside it nothing changes.

Printed output wraps at spaces on a narrow screen (``docs/stylesheets/extra.css``),
except output laid out in columns, padded with runs of spaces: wrapped, its columns
fall apart, so it is marked ``posenc-aligned`` and scrolls sideways instead. In
wrapping output the short phrases that prose keeps whole (``hooks/typography.py``:
"L0 = 4,096", "2.4e-16") are kept whole too.

A listing's file name too long for a phone breaks after a ``/``, not inside a word.
"""

import html
import re

import typography  # hooks/typography.py

LISTING = re.compile(r"<pre\b.*?</pre>", re.DOTALL)
PLAIN_TOKEN = re.compile(r'<span class="[nw]">([^<]*)</span>|<span></span>')


def without_plain_tokens(page_html: str) -> str:
    """The page with every listing's unstyled token spans replaced by their text."""

    def unwrap(listing: re.Match) -> str:
        return PLAIN_TOKEN.sub(lambda token: token[1] or "", listing[0])

    return LISTING.sub(unwrap, page_html)


OUTPUT = re.compile(
    r'<div class="language-text highlight"><pre><code>(.*?)</code></pre>', re.DOTALL
)
NOTEBOOK_OUTPUT = re.compile(  # a notebook cell's printed output (mkdocs-jupyter)
    r'<div class="jp-RenderedText jp-OutputArea-output"[^>]*>\s*<pre>(.*?)</pre>',
    re.DOTALL,
)
COLUMN_GAP = re.compile(r"\S {2,}\S")  # padding between two columns


def phrases_kept_whole(output_html: str) -> str:
    """``output_html`` with its short phrases ("L0 = 4,096", "2.4e-16") in nobreak
    spans, as `typography.kept_whole` keeps them in prose."""
    pieces = typography.TAG.split(output_html)  # text, tag, text, ...
    pieces[::2] = map(typography.kept_whole, pieces[::2])
    return "".join(pieces)


def aligned_outputs(page_html: str) -> str:
    """The page with printed output that has columns (two or more lines padded
    inside) marked ``posenc-aligned``: a listing's and a notebook cell's. In other
    output, which wraps, `phrases_kept_whole`."""

    def mark(output: re.Match, element: str) -> str:
        lines = html.unescape(re.sub(r"<[^>]+>", "", output[1])).splitlines()
        if sum(bool(COLUMN_GAP.search(line)) for line in lines) < 2:
            return phrases_kept_whole(output[0])
        return output[0].replace(element, f"{element} posenc-aligned", 1)

    page_html = OUTPUT.sub(lambda m: mark(m, "highlight"), page_html)
    return NOTEBOOK_OUTPUT.sub(lambda m: mark(m, "jp-OutputArea-output"), page_html)


FILE_NAME = re.compile(r'<span class="filename">([^<]*)</span>')


def breakable_file_names(page_html: str) -> str:
    """The page with a line-break opportunity after each ``/`` of a listing's
    file name (``<wbr>``: nothing to see, select or copy)."""

    def mark(name: re.Match) -> str:
        return f'<span class="filename">{name[1].replace("/", "/<wbr>")}</span>'

    return FILE_NAME.sub(mark, page_html)


def on_post_page(output, page, config):
    return breakable_file_names(aligned_outputs(without_plain_tokens(output)))
