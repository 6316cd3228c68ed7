"""Figures as a reader meets them on the built site: each numbered "Figure N" in
page order with its alt text as the caption, each a link to the full-size SVG,
text no smaller than 9 CSS px on a 390 px phone, and print showing the static
figures rather than a widget's controls."""

import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlparse

import pytest

from posenc_docs.figures import BY_SLUG
from posenc_docs.figures.spec import svg_size
from tests.conftest import figure_slugs, mount_widget
from tests.page_checks import SHOWN_FIGURES

PHONE = {"width": 390, "height": 844}
SMALLEST_PX = 9.0
# The article column where the desktop figures show (from 45em): narrowest at a
# 960 px window, 686 px, once Material's navigation sidebar appears (measured in
# Chromium at 720 to 1600 px). A wider figure is scaled down to it.
NARROWEST_DESKTOP_COLUMN = 686
SCALE = re.compile(r"scale\(([-\d.e]+)")
TEXT_SCALE = 100  # matplotlib draws a glyph path at size 100, then scales to points


def smallest_text(svg: bytes) -> tuple[float, float]:
    """(smallest font size, viewBox width), both in SVG units, of a matplotlib SVG
    whose text is drawn as paths: a text group is ``scale(size / 100)``, and a
    mathtext script inside it a further ``scale(0.7)``."""
    root = ET.fromstring(svg)
    sizes = []

    def walk(element, size):
        tag = element.tag.rsplit("}", 1)[-1]
        if tag == "defs":
            return
        found = SCALE.search(element.get("transform", ""))
        if found and size is None and tag == "g":
            size = abs(float(found[1])) * TEXT_SCALE
        elif size is not None and tag == "use":
            sizes.append(size * (abs(float(found[1])) if found else 1.0))
        for child in element:
            walk(child, size)

    walk(root, None)
    return min(sizes), float(root.get("viewBox").split()[2])


class Figures(HTMLParser):
    """Each ``<figure class="posenc-fig">``: its zoom link, image and caption (and
    the part of the caption hidden from screen readers)."""

    def __init__(self):
        super().__init__()
        self.found, self._caption, self._hidden = [], None, 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "figure" and "posenc-fig" in attrs.get("class", ""):
            self.found.append({"id": attrs.get("id"), "caption": ""})
        elif self.found and tag == "a" and "posenc-zoom" in attrs.get("class", ""):
            self.found[-1]["zoom"] = attrs["href"]
        elif self.found and tag == "img":
            self.found[-1]["alt"] = attrs.get("alt")
        elif self.found and tag == "figcaption":
            self._caption = self.found[-1]
            self._caption["hidden"] = ""
        elif self._caption is not None and attrs.get("aria-hidden") == "true":
            self._hidden = 1  # spans open in the hidden copy, its own included
        elif self._hidden and tag == "span":  # e.g. hooks/typography.py's
            self._hidden += 1

    def handle_endtag(self, tag):
        if tag == "figcaption":
            self._caption = None
        elif tag == "span":
            self._hidden = max(self._hidden - 1, 0)

    def handle_data(self, data):
        if self._caption is not None:
            self._caption["caption"] += data
            self._caption["hidden"] += data if self._hidden else ""


def page_figures(site_dir: Path, page: Path) -> list[dict]:
    parser = Figures()
    parser.feed((site_dir / page).read_text())
    return parser.found


@pytest.mark.build
def test_every_figure_is_numbered_captioned_and_links_to_its_svg(site_dir, html_pages):
    shown = 0
    for page in html_pages:
        html = (site_dir / page).read_text()
        figures = page_figures(site_dir, page)
        assert html.count("<picture") == len(figures), f"{page}: a bare picture"
        for number, figure in enumerate(figures, start=1):
            slug = figure["id"].removeprefix("fig-")
            caption = " ".join(figure["caption"].split())
            assert caption == f"Figure {number}. {BY_SLUG[slug].alt}", page
            assert figure["alt"] == BY_SLUG[slug].alt, page
            # read out once, as the alt: the caption's copy is hidden from readers
            assert " ".join(figure["hidden"].split()) == BY_SLUG[slug].alt, page
            target = (site_dir / page.parent / figure["zoom"]).resolve()
            assert target.suffix == ".svg" and target.is_file(), (page, target)
        shown += len(figures)
    assert shown >= 30


@pytest.mark.build
def test_prose_refers_to_figures_by_number(site_dir, html_pages):
    """A "Figure N" link points at figure N of the same page."""
    links = 0
    for page in html_pages:
        html = (site_dir / page).read_text()
        ids = [figure["id"] for figure in page_figures(site_dir, page)]
        for target, number in re.findall(
            r'<a href="#(fig-[^"]+)">(?:<span class="posenc-nobreak">)?'
            r"Figure (\d+)(?:</span>)?</a>",  # kept whole by hooks/typography.py
            html,
        ):
            assert ids.index(target) + 1 == int(number), (page, target, number)
            links += 1
    assert links >= 8


def figure_pages(site_dir, html_pages) -> list[Path]:
    return [p for p in html_pages if page_figures(site_dir, p)]


@pytest.mark.browser
def test_figure_text_is_at_least_9_px_on_a_phone(
    browser, site_dir, site_url, html_pages
):
    """Rendered size = font size in SVG units x rendered width / viewBox width, for
    the variant a 390 px phone fetches (JavaScript off: widget fallbacks too)."""
    context = browser.new_context(viewport=PHONE, java_script_enabled=False)
    page = context.new_page()
    measured = {}
    for path in figure_pages(site_dir, html_pages):
        page.goto(f"{site_url}/{path.parent.as_posix()}/", wait_until="load")
        for image in page.evaluate(SHOWN_FIGURES, True):  # widget fallbacks too
            source, width = urlparse(image["src"]).path, image["shown"]
            assert "-phone-" in source, f"{path}: a phone got {source}"
            size, view_width = smallest_text(
                (site_dir / source.lstrip("/")).read_bytes()
            )
            measured[f"{path.parent}: {source}"] = size * width / view_width
    context.close()
    small = {name: round(px, 2) for name, px in measured.items() if px < SMALLEST_PX}
    assert len(measured) >= 30 and small == {}, small


@pytest.mark.build
def test_figure_text_is_at_least_9_px_in_the_narrowest_desktop_column(site_dir):
    """A desktop figure wider than the column is shown scaled down: the lab's five
    passkey grids in one row (1,181 px) printed their percentages at 6.2 px."""
    measured = {}
    for svg in (site_dir / "figures").glob("*-light.svg"):
        if "-phone-" in svg.name:
            continue
        data = svg.read_bytes()
        size, view_width = smallest_text(data)
        shown = min(svg_size(data)[0], NARROWEST_DESKTOP_COLUMN)
        measured[svg.name] = size * shown / view_width
    small = {name: round(px, 2) for name, px in measured.items() if px < SMALLEST_PX}
    assert len(measured) >= 30 and small == {}, small


def test_smallest_text_reads_matplotlib_text_groups_and_scripts():
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 200">'
        b'<defs><path id="p" transform="scale(0.015625)"/></defs>'
        b'<g transform="translate(1 2) scale(0.1 -0.1)"><use href="#p"/></g>'
        b'<g transform="translate(1 2) scale(0.12 -0.12)">'
        b'<use href="#p" transform="translate(3 4) scale(0.7)"/></g></svg>'
    )
    size, view_width = smallest_text(svg)
    assert size == pytest.approx(8.4) and view_width == 360


@pytest.mark.browser
@pytest.mark.parametrize("path", ["part1/picture/", "part2/07-context-extension/"])
def test_print_shows_the_static_figures_not_the_widget(guarded, site_url, path):
    tab = guarded(color_scheme="dark", width=1280).without_cache()
    tab.open(f"{site_url}/{path}")
    mount_widget(tab.page)
    fallbacks = tab.page.locator(".posenc-widget figure.posenc-fig")
    assert fallbacks.count() >= 1
    assert not any(fallbacks.nth(i).is_visible() for i in range(fallbacks.count()))
    slugs = figure_slugs(fallbacks.locator("img"))
    fetched = [u for u in tab.requested for slug in slugs if f"/{slug}-" in u]
    assert fetched == [], "a hidden fallback figure was fetched on screen"
    tab.page.emulate_media(media="print")
    assert all(fallbacks.nth(i).is_visible() for i in range(fallbacks.count()))
    assert not tab.page.locator(".posenc-widget .pw").is_visible()
    image = fallbacks.first.locator("img")
    image.scroll_into_view_if_needed()  # lazy: loads near the viewport, or on print
    image.evaluate("img => img.decode()")
    assert image.evaluate("img => img.naturalWidth") > 100
    printed = image.evaluate("img => img.currentSrc")
    assert printed.endswith("-light.svg") and "-phone-" not in printed  # white paper
    assert tab.errors == []
