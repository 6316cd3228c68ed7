"""The built site in real Chromium: no request leaves 127.0.0.1, no errors, math
rendered, figures loaded in the scheme the reader uses, usable at 390 px."""

import pytest

pytestmark = pytest.mark.browser

RAW_TEX = ["$$", "\\frac", "\\sin", "\\(", "\\["]


def visit(guarded, site_url, page, **options):
    tab = guarded(**options)
    tab.page.goto(f"{site_url}/{page.parent.as_posix()}/", wait_until="networkidle")
    return tab


def test_every_page_stays_local_and_error_free(guarded, site_url, html_pages):
    for page in html_pages:
        tab = visit(guarded, site_url, page)
        assert tab.blocked == [], f"{page}: requests left 127.0.0.1: {tab.blocked}"
        assert tab.errors == [], f"{page}: {tab.errors}"
        text = tab.page.evaluate(
            "() => { const c = document.querySelector('.md-content').cloneNode(true);"
            " c.querySelectorAll('pre, code, .katex, script, style')"
            ".forEach(e => e.remove()); return c.innerText; }"
        )
        raw = [t for t in RAW_TEX if t in text]
        assert not raw, f"{page}: TeX left unrendered: {raw}"
        tab.page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_figures_load_in_the_readers_scheme(guarded, site_url, html_pages, scheme):
    checked = 0
    for page in html_pages:
        tab = visit(guarded, site_url, page, color_scheme=scheme)
        figures = tab.page.locator(
            f'img[src*="figures/"][src$="#only-{scheme}"]:not(.posenc-widget img)'
        )
        for i in range(figures.count()):
            image = figures.nth(i)
            image.scroll_into_view_if_needed()
            image.evaluate("img => img.decode()")
            assert image.is_visible(), f"{page}: {scheme} figure hidden"
            assert image.evaluate("img => img.naturalWidth") > 100
            assert image.get_attribute("alt"), f"{page}: figure without alt text"
            checked += 1
        other = "dark" if scheme == "light" else "light"
        hidden = tab.page.locator(f'img[src$="#only-{other}"]')
        assert all(not hidden.nth(i).is_visible() for i in range(hidden.count()))
        tab.page.context.close()
    assert checked >= 1


def test_math_is_rendered_by_local_katex(guarded, site_url):
    tab = guarded()
    tab.page.goto(f"{site_url}/part1/worked-example/", wait_until="networkidle")
    assert tab.page.locator(".katex").count() >= 5
    assert tab.page.evaluate("document.fonts.check('16px KaTeX_Main')")
    assert tab.blocked == [] and tab.errors == []


def test_narrow_screen_has_no_horizontal_scroll(guarded, site_url, html_pages):
    for page in html_pages:
        tab = visit(guarded, site_url, page, width=390)
        overflow = tab.page.evaluate(
            "document.documentElement.scrollWidth - window.innerWidth"
        )
        assert overflow <= 1, f"{page}: {overflow}px wider than a 390 px screen"
        tab.page.context.close()


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
