"""MkDocs hook: a table wider than the screen says that it scrolls.

Each Markdown table goes into a ``<div class="posenc-table">`` that starts with a
hint line; ``docs/stylesheets/extra.css`` shows the hint, and shadows at the edge
where the table is cut, only while the table is wider than its column (a
scroll-driven animation, so it works without JavaScript). Material's own scroll
wrapper, which its JavaScript would add by moving each table while the page starts
(a restyle of the table and its neighbours, 25 tables on an API page), is written
here at build time around the table; hooks/material_bundle.py has Material leave a
table so wrapped where it is. The hint is left out of search and of what screen
readers announce; the table is a tab stop, so a keyboard can scroll it too.
"""

import re

TABLE = re.compile(r"<table>.*?</table>", re.DOTALL)
HINT = (
    '<p class="posenc-table__hint" aria-hidden="true" data-search-exclude>'
    "Wider than the page: scroll the table sideways \u2192</p>"
)


CODE_TEXT = re.compile(r"<code>([^<]*)</code>")
# After an underscore; after a dot between names (not in a number); and where a
# CamelCase name starts its next word.
BREAK_POINT = re.compile(r"(?<=_)|(?<=[A-Za-z]\.)(?=[A-Za-z_])|(?<=[a-z])(?=[A-Z])")


def with_break_points(code) -> str:
    """Inline code in a table may break between the parts of a name, not mid-word:
    in a narrow column `partial_rotary` broke as `partial_rotar` / `y`, and
    `learned.LearnedPositionalEmbedding` as `learned.Learne` / `dPositionalEmb`."""
    return f"<code>{BREAK_POINT.sub('<wbr>', code[1])}</code>"


def with_scroll_hints(page_html: str) -> str:
    """Every plain ``<table>`` of a page inside a scroll-hint container."""

    def wrap(table):
        focusable = table[0].replace("<table>", '<table tabindex="0">', 1)
        focusable = CODE_TEXT.sub(with_break_points, focusable)
        return (
            f'<div class="posenc-table">{HINT}<div class="md-typeset__scrollwrap">'
            f'<div class="md-typeset__table">{focusable}</div></div></div>'
        )

    return TABLE.sub(wrap, page_html)


def on_page_content(page_html, page, config, files):
    return with_scroll_hints(page_html)
