"""The built site in real Chromium: no request leaves 127.0.0.1, no errors, math
rendered, figures loaded in the scheme the reader uses, usable at 390 px.

Each page is loaded once per colour scheme and every check runs on that load."""

import json
import statistics

import pytest

from tests.conftest import figure_slugs

pytestmark = pytest.mark.browser

RAW_TEX = ["$$", "\\frac", "\\sin", "\\(", "\\["]
# Walks the text in place: a clone of the content would fetch every image it holds,
# the hidden fallbacks of mounted widgets included.
VISIBLE_TEXT = """() => {
  const skip = 'pre, code, .katex, script, style, noscript';
  const walk = document.createTreeWalker(
    document.querySelector('.md-content'), NodeFilter.SHOW_TEXT);
  const parts = [];
  while (walk.nextNode()) {
    const parent = walk.currentNode.parentElement;
    if (!parent.closest(skip) && parent.checkVisibility()) {
      parts.push(walk.currentNode.textContent);
    }
  }
  return parts.join(' ');
}"""


def visit(guarded, site_url, page, **options):
    tab = guarded(**options)
    tab.page.goto(f"{site_url}/{page.parent.as_posix()}/", wait_until="networkidle")
    return tab


def check_figures(tab, page, scheme) -> int:
    """Figures show in ``scheme``, sized before load; the other scheme's never load."""
    shown = tab.page.locator("picture.posenc-figure img:not(.posenc-widget img)")
    for i in range(shown.count()):
        image = shown.nth(i)
        image.scroll_into_view_if_needed()
        image.evaluate("img => img.decode()")
        assert image.is_visible(), f"{page}: figure hidden"
        assert image.evaluate("img => img.currentSrc").endswith(f"-{scheme}.svg"), page
        assert image.evaluate("img => img.naturalWidth") > 100, page
        assert image.get_attribute("alt"), f"{page}: figure without alt text"
        assert int(image.get_attribute("width")) > 100, f"{page}: figure unsized"
    other = "dark" if scheme == "light" else "light"
    fetched = [u for u in tab.requested if u.endswith(f"-{other}.svg")]
    assert not fetched, f"{page}: fetched the {other} variant: {fetched}"
    hidden = tab.page.locator(".posenc-widget[data-mounted] picture img")
    names = figure_slugs(hidden)
    fetched = [u for u in tab.requested for name in names if f"/{name}-" in u]
    assert not fetched, f"{page}: a mounted widget's fallback was fetched: {fetched}"
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
        katex_scripts = tab.page.locator('script[src*="katex"]').count()
        assert katex_scripts == 0, f"{page}: ships KaTeX JavaScript"
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


def test_figures_follow_the_scheme_toggle(guarded, site_url):
    tab = guarded(color_scheme="light")
    tab.page.goto(f"{site_url}/part1/clocks/", wait_until="networkidle")
    image = tab.page.locator("picture.posenc-figure img").first
    image.scroll_into_view_if_needed()
    assert image.evaluate("img => img.currentSrc").endswith("-light.svg")
    tab.page.locator('label[for="__palette_1"]').click()  # the toggle to dark
    tab.page.wait_for_function(
        "img => img.currentSrc.endsWith('-dark.svg')", arg=image.element_handle()
    )
    tab.page.reload(wait_until="networkidle")  # the choice is saved: dark only
    tab.requested.clear()
    tab.page.reload(wait_until="networkidle")
    tab.page.locator("picture.posenc-figure img").first.scroll_into_view_if_needed()
    assert not [u for u in tab.requested if u.endswith("-light.svg")]


def test_widget_fallbacks_show_with_javascript_off(guarded, site_url):
    tab = guarded(javascript=False)
    tab.page.goto(f"{site_url}/part1/picture/", wait_until="networkidle")
    assert tab.page.locator(".posenc-widget picture img").count() >= 6


@pytest.mark.parametrize("page", ["part1/formula", "notebooks/four_methods"])
def test_math_shows_with_javascript_off(guarded, site_url, page):
    tab = guarded(javascript=False)
    tab.page.goto(f"{site_url}/{page}/", wait_until="networkidle")
    assert tab.page.locator(".katex-html").count() >= 5
    assert not [t for t in RAW_TEX if t in tab.page.evaluate(VISIBLE_TEXT)], page


def test_notebook_pages_link_their_executed_source(guarded, site_url, html_pages):
    """Each notebook page links its .py and its .ipynb, and both download."""
    notebooks = [page for page in html_pages if page.parts[0] == "notebooks"]
    assert len(notebooks) >= 2
    for page in notebooks:
        tab = visit(guarded, site_url, page)
        fetched = {}
        for suffix in (".py", ".ipynb"):
            link = tab.page.locator(f'p.posenc-download a[download][href$="{suffix}"]')
            assert link.count() == 1, f"{page}: no {suffix} download link"
            response = tab.page.request.get(link.evaluate("a => a.href"))  # resolved
            assert response.ok, f"{page}: {suffix} link is broken"
            fetched[suffix] = response.text()
        assert "# %%" in fetched[".py"], page
        assert json.loads(fetched[".ipynb"])["cells"], page
        tab.page.context.close()


def test_pages_stay_light_and_still(guarded, site_url, html_pages):
    """Gzip bytes a cold reader downloads, and layout shift, at 390 px (issue 12)."""
    from benchmarks.pages import measure_page

    sizes = {}
    for page in html_pages:
        tab = guarded(width=390)
        result = measure_page(tab.page, f"{site_url}/{page.parent.as_posix()}/")
        tab.page.context.close()
        assert result["cls"] <= 0.02, f"{page}: layout shift {result['cls']:.3f}"
        assert result["gzip"] <= 300_000, f"{page}: {result['gzip']:,} gzip bytes"
        sizes[page] = result["gzip"]
    assert statistics.median(sizes.values()) <= 160_000, sizes
