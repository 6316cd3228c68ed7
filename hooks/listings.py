"""MkDocs hook: code listings with fewer elements, the same text and the same colours.

Pygments puts every token in a span. Three kinds of span change nothing a reader
sees: names (``n``), whose colour ``--md-code-hl-name-color`` is the listing's own
``--md-code-fg-color`` in both schemes; whitespace (``w``), which no stylesheet
styles; and the empty span that opens every block. They still cost the browser:
each is an element that every restyle of the page visits, and Material's start-up
restyles the whole page several times. Inside ``<pre>`` those spans become their
bare text; outside it nothing changes.
"""

import re

LISTING = re.compile(r"<pre\b.*?</pre>", re.DOTALL)
PLAIN_TOKEN = re.compile(r'<span class="[nw]">([^<]*)</span>|<span></span>')


def without_plain_tokens(page_html: str) -> str:
    """The page with every listing's unstyled token spans replaced by their text."""

    def unwrap(listing: re.Match) -> str:
        return PLAIN_TOKEN.sub(lambda token: token[1] or "", listing[0])

    return LISTING.sub(unwrap, page_html)


def on_post_page(output, page, config):
    return without_plain_tokens(output)
