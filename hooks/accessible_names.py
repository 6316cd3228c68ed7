"""MkDocs hook: names a screen reader reads, without noise and none empty.

- **Headings without their permalink.** Python-Markdown ends every heading with
  ``<a class="headerlink">¶</a>`` (notebook headings, with JupyterLab's
  ``anchor-link``), so a screen reader announced each heading as "The rotation ¶"
  and its list of headings read that way. The link is a thing to point at and
  copy: as GitHub does with its heading anchors, it is hidden from assistive
  technology and taken out of the tab order (a hidden link that took focus would
  be an axe-core violation). It still shows on hover, as before.
- **Navigation sections named.** Material labels each section of its navigation
  (a ``<nav>`` landmark) by the section's toggle; with navigation.indexes that
  toggle holds only an icon, or is not there at all (a section with no pages
  under its own), so four navigation landmarks on every page had no name. Each
  takes the title the section shows at its top instead (``aria-label``).
"""

import re

PERMALINK = re.compile(r'<a (?=[^>]*\bclass="(?:headerlink|anchor-link)")')
SECTION = re.compile(
    r'(<nav class="md-nav" data-md-level="\d+") aria-labelledby="[^"]*"'
    r'( aria-expanded="[^"]*">\s*<label class="md-nav__title" for="[^"]*">\s*'
    r'<span class="md-nav__icon md-icon"></span>\s*(?P<title>[^<]*?)\s*</label>)'
)


def without_permalink_names(page_html: str) -> str:
    """Every heading permalink of a page hidden from assistive technology."""
    return PERMALINK.sub('<a aria-hidden="true" tabindex="-1" ', page_html)


def with_section_names(page_html: str) -> str:
    """Every navigation section named by the title shown at its top."""
    return SECTION.sub(r'\1 aria-label="\g<title>"\2', page_html)


def on_post_page(output, page, config):
    return with_section_names(without_permalink_names(output))
