"""MkDocs hook: a heading's permalink stays out of the heading's name.

Python-Markdown ends every heading with ``<a class="headerlink">¶</a>`` (notebook
headings, with JupyterLab's ``anchor-link``), so a screen reader announced each
heading as "The rotation ¶" and its list of headings read that way. The link is a
thing to point at and copy: as GitHub does with its heading anchors, it is hidden
from assistive technology and taken out of the tab order (a hidden link that took
focus would be an axe-core violation). It still shows on hover, as before.
"""

import re

PERMALINK = re.compile(r'<a (?=[^>]*\bclass="(?:headerlink|anchor-link)")')


def without_permalink_names(page_html: str) -> str:
    """Every heading permalink of a page hidden from assistive technology."""
    return PERMALINK.sub('<a aria-hidden="true" tabindex="-1" ', page_html)


def on_post_page(output, page, config):
    return without_permalink_names(output)
