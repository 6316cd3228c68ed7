"""The built site in real Chromium: no request leaves 127.0.0.1, no errors, math
rendered, figures loaded in the scheme the reader uses, usable at 390 px.

Each page is loaded once per colour scheme and every check runs on that load."""

import pytest

pytestmark = pytest.mark.browser

RAW_TEX = ["$$", "\\frac", "\\sin", "\\(", "\\["]
VISIBLE_TEXT = """() => {
  const copy = document.querySelector('.md-content').cloneNode(true);
  copy.querySelectorAll('pre, code, .katex, script, style').forEach(e => e.remove());
  return copy.innerText;
}"""


def visit(guarded, site_url, page, **options):
    tab = guarded(**options)
    tab.page.goto(f"{site_url}/{page.parent.as_posix()}/", wait_until="networkidle")
    return tab


def check_figures(tab, page, scheme) -> int:
    """Figures of ``scheme`` load and show; the other scheme's stay hidden."""
    shown = tab.page.locator(
        f'img[src*="figures/"][src$="#only-{scheme}"]:not(.posenc-widget img)'
    )
    for i in range(shown.count()):
        image = shown.nth(i)
        image.scroll_into_view_if_needed()
        image.evaluate("img => img.decode()")
        assert image.is_visible(), f"{page}: {scheme} figure hidden"
        assert image.evaluate("img => img.naturalWidth") > 100, page
        assert image.get_attribute("alt"), f"{page}: figure without alt text"
    other = "dark" if scheme == "light" else "light"
    hidden = tab.page.locator(f'img[src$="#only-{other}"]')
    assert not any(hidden.nth(i).is_visible() for i in range(hidden.count())), page
    return shown.count()


def check_narrow(tab, page) -> None:
    tab.page.set_viewport_size({"width": 390, "height": 844})
    overflow = tab.page.evaluate(
        "document.documentElement.scrollWidth - window.innerWidth"
    )
    assert overflow <= 1, f"{page}: {overflow}px wider than a 390 px screen"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page(guarded, site_url, html_pages, scheme):
    figures = 0
    for page in html_pages:
        tab = visit(guarded, site_url, page, color_scheme=scheme)
        assert tab.blocked == [], f"{page}: requests left 127.0.0.1: {tab.blocked}"
        assert tab.errors == [], f"{page}: {tab.errors}"
        raw = [t for t in RAW_TEX if t in tab.page.evaluate(VISIBLE_TEXT)]
        assert not raw, f"{page}: TeX left unrendered: {raw}"
        figures += check_figures(tab, page, scheme)
        check_narrow(tab, page)
        assert tab.errors == [], f"{page} at 390 px: {tab.errors}"
        tab.page.context.close()
    assert figures >= 20


def test_math_is_rendered_by_local_katex(guarded, site_url):
    tab = guarded()
    tab.page.goto(f"{site_url}/part1/worked-example/", wait_until="networkidle")
    assert tab.page.locator(".katex").count() >= 5
    assert tab.page.evaluate("document.fonts.check('16px KaTeX_Main')")
    assert tab.blocked == [] and tab.errors == []


def test_notebook_pages_link_their_executed_source(guarded, site_url, html_pages):
    notebooks = [page for page in html_pages if page.parts[0] == "notebooks"]
    assert len(notebooks) >= 2
    for page in notebooks:
        tab = visit(guarded, site_url, page)
        link = tab.page.locator("p.posenc-download a[download]")
        assert link.count() == 1, f"{page}: no download link"
        source = tab.page.request.get(link.evaluate("a => a.href"))  # resolved URL
        assert source.ok and "# %%" in source.text(), page
        tab.page.context.close()
