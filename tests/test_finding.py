"""Finding things and reading them on a phone (issue 13): each page's own meta
description, search that puts the teaching page above its API page with clean
snippets, a 404 page with search and a way home, notebooks as .ipynb and .py,
wide tables that say they scroll, notebook cells at the page's width, and a home
page whose first screen shows what the site is."""

import json
import shutil
import subprocess
import time
from pathlib import Path
from urllib.parse import urljoin

import jupytext
import nbformat
import pytest
import yaml
from bs4 import BeautifulSoup

from tests.conftest import ROOT, guarded_page, page_soup

NODE = shutil.which("node")
PHONE = {"width": 390, "height": 844}
# (query, the page that teaches it, its API page): the teacher must rank higher.
TEACHERS = [
    ("alibi", "part2/05-alibi/", "api/alibi/"),
    ("yarn", "part2/07-context-extension/", "api/scaling/"),
    ("ntk", "part2/07-context-extension/", "api/scaling/"),
    ("rope", "part2/04-rope/", "api/rope/"),
    ("sinusoidal", "part2/02-sinusoidal/", "api/sinusoidal/"),
    ("learned", "part2/03-learned/", "api/learned/"),
    ("t5", "part3/relative/", "api/relative_bias/"),
    ("partial rotary", "part3/partial/", "api/partial_rotary/"),
    ("mrope", "part3/axes/", "api/mrope/"),
    ("sliding window", "part3/windows/", "api/windows/"),
]
RAW_IN_SNIPPETS = ["$$", "\\frac", "\\(", "\\[", ":func:", ":class:", ":meth:", "In ["]


def front_matter(page: Path) -> dict:
    text = page.read_text(encoding="utf-8")
    if page.suffix == ".py":
        return jupytext.reads(text, fmt="py:percent").metadata
    head, _, _ = text.removeprefix("---\n").partition("\n---\n")
    return yaml.safe_load(head) if text.startswith("---\n") else {}


def test_every_source_page_states_a_one_sentence_description():
    pages = sorted((ROOT / "docs").rglob("*.md")) + sorted(
        (ROOT / "docs" / "notebooks").glob("*.py")
    )
    described = {p.relative_to(ROOT): front_matter(p).get("description") for p in pages}
    missing = [str(p) for p, text in described.items() if not text]
    assert not missing, f"pages without a description: {missing}"
    for page, text in described.items():
        assert 40 <= len(text) <= 200, f"{page}: {len(text)} characters"
        assert text.rstrip().endswith((".", "?")), f"{page}: not a sentence"


@pytest.mark.build
def test_no_two_pages_share_a_description_and_none_falls_back(site_dir, html_pages):
    site_description = yaml.safe_load((ROOT / "mkdocs.yml").read_text())[
        "site_description"
    ]
    by_text = {}
    for page in html_pages:
        description = {"name": "description"}
        tags = page_soup(site_dir / page).find_all("meta", attrs=description)
        assert len(tags) == 1, f"{page}: {len(tags)} meta descriptions"
        text = tags[0]["content"]
        assert text != site_description, f"{page}: only the site's description"
        by_text.setdefault(text, []).append(str(page))
    shared = {text: pages for text, pages in by_text.items() if len(pages) > 1}
    assert not shared, f"pages sharing a description: {shared}"


def material_ranking(site_dir: Path, queries: list[str]) -> dict[str, list[str]]:
    """Page locations per query, in the order Material's search shows them."""
    script = ROOT / "tests" / "material_search.mjs"
    result = subprocess.run(
        [NODE, script, site_dir, *queries], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    ranked = json.loads(result.stdout)
    return {q: [loc.split("#")[0] for loc, _ in hits] for q, hits in ranked.items()}


@pytest.mark.build
@pytest.mark.skipif(NODE is None, reason="needs node")
def test_search_ranks_the_teaching_page_above_its_api_page(site_dir):
    ranking = material_ranking(site_dir, [query for query, _, _ in TEACHERS])
    for query, teacher, api in TEACHERS:
        pages = ranking[query]
        assert teacher in pages and api in pages, f"{query!r}: {pages[:8]}"
        assert pages.index(teacher) < pages.index(api), f"{query!r}: {pages[:8]}"
    # a function's exact name still finds its API page first
    assert material_ranking(site_dir, ["yarn_ramp_bounds"])["yarn_ramp_bounds"][0] == (
        "api/scaling/"
    )


@pytest.mark.build
def test_search_snippets_carry_no_tex_roles_prompts_or_hints(site_dir):
    index = json.loads((site_dir / "search" / "search_index.json").read_text())
    for doc in index["docs"]:
        text = BeautifulSoup(doc["text"], "html.parser").get_text()
        raw = [marker for marker in RAW_IN_SNIPPETS if marker in text]
        assert not raw, f"{doc['location']}: {raw} in {text[:200]!r}"
        assert "table sideways" not in text, f"{doc['location']}: the scroll hint"


@pytest.mark.build
def test_404_page_has_a_search_form_and_a_way_home(site_dir):
    """From any missing address, the form and the home link land on the home page."""
    page = page_soup(site_dir / "404.html")
    missing = "https://posenc-docs.example/no/such/page/"
    form = page.select_one("form.posenc-404-search")
    assert form is not None and form["method"] == "get"
    assert urljoin(missing, form["action"]) == "https://posenc-docs.example/"
    query = form.select_one('input[name="q"]')  # Material opens search for ?q=
    assert query is not None and page.select_one(f'label[for="{query["id"]}"]')
    home = page.select_one(".md-content a.posenc-home")
    assert "home" in home.get_text().lower()
    assert urljoin(missing, home["href"]) == "https://posenc-docs.example/"
    parts = page.select(".md-content li a")  # the parts of the site
    assert len(parts) >= 5
    for link in parts:
        assert (site_dir / link["href"].lstrip("/") / "index.html").is_file(), link


@pytest.mark.build
def test_every_table_header_cell_says_what_its_column_holds(site_dir, html_pages):
    """A screen reader reads a column's header with each of its cells: an empty
    one (the lab's run table had one) reads as nothing (axe-core: empty-table-
    header)."""
    empty = [
        page.as_posix()
        for page in html_pages
        for cell in page_soup(site_dir / page).select("thead th")
        if not cell.get_text(strip=True)
    ]
    assert empty == []


@pytest.mark.build
def test_notebook_pages_offer_ipynb_and_py_that_exist_in_the_site(site_dir, html_pages):
    notebooks = [page for page in html_pages if page.parts[0] == "notebooks"]
    assert len(notebooks) >= 2
    for page in notebooks:
        links = page_soup(site_dir / page).select("p.posenc-download a[download]")
        targets = {
            Path(a["href"]).suffix: site_dir / page.parent / a["href"] for a in links
        }
        assert sorted(targets) == [".ipynb", ".py"], f"{page}: {targets}"
        assert all(path.is_file() for path in targets.values()), targets
        notebook = nbformat.read(targets[".ipynb"], as_version=4)
        nbformat.validate(notebook)
        script = jupytext.read(targets[".py"])  # the same cells, independently
        assert [c.source for c in notebook.cells] == [c.source for c in script.cells]
        assert ROOT.joinpath("docs", "notebooks", targets[".py"].name).read_bytes() == (
            targets[".py"].read_bytes()
        )


TABLES = """() => [...document.querySelectorAll('.md-content table')].map(table => {
  const box = table.closest('.posenc-table');
  const scroller = table.closest('.md-typeset__scrollwrap') || table;
  const hint = box && box.querySelector('.posenc-table__hint');
  const style = getComputedStyle(scroller);
  return {
    wide: scroller.scrollWidth > scroller.clientWidth + 1,
    tableWidth: table.getBoundingClientRect().width,
    boxed: !!box,
    scrolls: ['auto', 'scroll'].includes(style.overflowX),
    hint: !!hint && hint.getBoundingClientRect().height > 0
      && getComputedStyle(hint).visibility === 'visible',
  };
})"""


def settled_tables(tab, seconds: float = 5.0) -> list[dict]:
    """``TABLES`` once every hint agrees with its table (or after ``seconds``): the
    hint follows its scroller's timeline, which can be frames late under load, and
    with JavaScript a frame late again once Material has rewrapped the table."""
    deadline = time.monotonic() + seconds
    while True:
        tables = tab.page.evaluate(TABLES)
        settled = all(t["hint"] == t["wide"] for t in tables if t["boxed"])
        if settled or time.monotonic() > deadline:
            return tables
        tab.page.wait_for_timeout(100)


def pages_with_tables(site_dir, html_pages) -> list[Path]:
    return [p for p in html_pages if "posenc-table" in (site_dir / p).read_text()]


TABLE_BOXES = """() => [...document.querySelectorAll('.posenc-table')].map(box => {
  const r = box.getBoundingClientRect();
  return [Math.round(r.top + scrollY), Math.round(r.height)];
})"""


@pytest.fixture(scope="module")
def phone_tables(browser, site_url, site_dir, html_pages) -> dict:
    """{(page, javascript): (TABLE_BOXES, settled TABLES)} of every page with a
    table at phone size, JavaScript off and on (with it, once Material has wrapped
    the tables): one load each, in one tab per mode, read by both table tests."""
    tabs = {js: guarded_page(browser, javascript=js) for js in (False, True)}
    for tab in tabs.values():
        tab.page.set_viewport_size(PHONE)  # kept from page to page
    seen = {}
    for page in pages_with_tables(site_dir, html_pages):
        for javascript, tab in tabs.items():
            tab.page.goto(f"{site_url}/{page.parent.as_posix()}/", wait_until="load")
            if javascript:
                tab.page.wait_for_selector(".posenc-table .md-typeset__scrollwrap")
            boxes = tab.page.evaluate(TABLE_BOXES)
            seen[page, javascript] = boxes, settled_tables(tab)
    for tab in tabs.values():
        tab.page.context.close()
    return seen


@pytest.mark.browser
@pytest.mark.parametrize("javascript", [True, False])
def test_tables_wider_than_a_phone_scroll_in_a_container_with_the_hint(
    phone_tables, javascript
):
    wide = 0
    for (page, js), (_, tables) in phone_tables.items():
        for table in tables if js == javascript else []:
            if table["tableWidth"] > PHONE["width"] or table["wide"]:
                assert table["boxed"] and table["scrolls"], f"{page}: {table}"
            if table["boxed"]:
                assert table["hint"] == table["wide"], f"{page}: {table}"
            wide += table["wide"]
    assert wide >= 5  # the comparison, extension and Part III tables


@pytest.mark.browser
def test_wrapping_a_table_moves_nothing(phone_tables, site_dir):
    """Material's script wraps each table after load; every table box has the same
    place and height before (JavaScript off) and after, so the late wrap shifts no
    text (it did by 0.2-0.5 CLS on the lab and API pages under load)."""
    pages = {page for page, _ in phone_tables}
    assert pages
    for page in sorted(pages):
        off, on = phone_tables[page, False][0], phone_tables[page, True][0]
        assert len(off) == len(on), page
        if "posenc-widget" in (site_dir / page).read_text():  # a widget is taller
            off, on = [[0, h] for _, h in off], [[0, h] for _, h in on]  # heights
        moved = [(a, b) for a, b in zip(off, on, strict=True)
                 if abs(a[0] - b[0]) > 2 or abs(a[1] - b[1]) > 2]  # fmt: skip
        assert moved == [], f"{page}: (top, height) without / with JavaScript"


NOTEBOOK_LOOK = """() => {
  const content = document.querySelector('.md-content__inner');
  const cells = [...document.querySelectorAll('.jp-CodeCell .highlight-ipynb')];
  const prompts = [...document.querySelectorAll('.jp-InputPrompt, .jp-OutputPrompt')];
  const outputs = [...document.querySelectorAll('.jp-OutputArea-output pre')];
  const keyword = document.querySelector('.highlight-ipynb .kn, .highlight-ipynb .k');
  return {
    contentWidth: content.getBoundingClientRect().width
      - parseFloat(getComputedStyle(content).paddingLeft)
      - parseFloat(getComputedStyle(content).paddingRight),
    cellWidths: cells.map(c => c.getBoundingClientRect().width),
    promptsShown: prompts.filter(p => p.getBoundingClientRect().width > 0).length,
    breaks: [...new Set(outputs.map(o => [o.parentElement.matches('.posenc-aligned'),
      getComputedStyle(o).wordBreak, getComputedStyle(o).overflowWrap,
      getComputedStyle(o).whiteSpace].join(' ')))].sort(),
    scrolling: outputs.filter(o => o.parentElement.scrollWidth
      > o.parentElement.clientWidth).map(o => o.parentElement.tabIndex),
    keyword: getComputedStyle(keyword).color,
    background: getComputedStyle(cells[0]).backgroundColor,
  };
}"""
SITE_CODE = """() => {
  const keyword = document.querySelector('.md-typeset .highlight .kn, .highlight .k');
  const code = document.querySelector('.md-typeset pre > code');
  return {keyword: getComputedStyle(keyword).color,
          background: getComputedStyle(code).backgroundColor};
}"""


@pytest.mark.browser
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_notebook_cells_take_the_page_width_and_the_site_code_colours(
    guarded, site_url, scheme
):
    tab = guarded(color_scheme=scheme)
    tab.page.goto(f"{site_url}/part2/04-rope/", wait_until="load")
    site = tab.page.evaluate(SITE_CODE)
    tab.page.goto(f"{site_url}/notebooks/four_methods/", wait_until="load")
    wide = tab.page.evaluate(NOTEBOOK_LOOK)
    assert wide["promptsShown"] > 0  # desktop keeps In [n]:
    assert (wide["keyword"], wide["background"]) == (
        site["keyword"],
        site["background"],
    )
    tab.page.set_viewport_size(PHONE)
    phone = tab.page.evaluate(NOTEBOOK_LOOK)
    assert phone["promptsShown"] == 0
    assert min(phone["cellWidths"]) >= 0.99 * phone["contentWidth"], phone
    # Output wraps at spaces, never inside a number; in columns it scrolls.
    aligned, wrapped = "true normal normal pre", "false normal normal pre-wrap"
    assert phone["breaks"] == [wrapped, aligned], phone["breaks"]
    assert phone["scrolling"] and set(phone["scrolling"]) == {0}  # by keyboard too


@pytest.mark.browser
@pytest.mark.parametrize("width", [PHONE["width"], 1280])
def test_home_first_screen_says_what_the_site_is_with_a_figure(
    guarded, site_url, width
):
    tab = guarded(width=width)
    tab.page.set_viewport_size({"width": width, "height": PHONE["height"]})
    tab.open(f"{site_url}/")
    height = PHONE["height"]
    title = tab.page.locator(".md-content h1").bounding_box()
    lead = tab.page.locator(".md-content h1 + p").bounding_box()
    figure = tab.page.locator(".md-content picture.posenc-figure img").first
    box = figure.bounding_box()
    assert title["y"] + title["height"] < height and lead["y"] + lead["height"] < height
    assert box["y"] + box["height"] / 2 < height, f"figure starts at {box['y']}"
    assert figure.get_attribute("alt")


@pytest.mark.browser
def test_404_search_opens_the_sites_search_with_the_query(guarded, site_url):
    tab = guarded(width=PHONE["width"])
    tab.page.goto(f"{site_url}/404.html", wait_until="load")
    tab.page.fill("#posenc-404-query", "alibi")
    tab.page.click(".posenc-404-search button")
    tab.page.wait_for_selector(".md-search-result__item", timeout=15000)
    first = tab.page.locator(".md-search-result__item > a").first.get_attribute("href")
    assert first.rstrip("/").endswith("part2/05-alibi"), first
    tab.page.goto(f"{site_url}/404.html", wait_until="load")
    tab.page.click(".md-content a.posenc-home")
    tab.page.wait_for_load_state("load")
    assert tab.page.url.rstrip("/") == site_url
    assert tab.blocked == [] and tab.errors == []


STICKY_LABELS = """() => {
  const table = document.querySelector('.posenc-table table');
  const box = table.closest('.md-typeset__scrollwrap') || table;  // what scrolls
  const label = () => table.rows[1].cells[0].getBoundingClientRect().left;
  const other = () => table.rows[1].cells[1].getBoundingClientRect().left;
  const before = [label(), other()];
  box.scrollLeft = 200;
  return {scrolled: box.scrollLeft, before, after: [label(), other()],
          left: box.getBoundingClientRect().left};
}"""


@pytest.mark.browser
@pytest.mark.parametrize("javascript", [True, False])
def test_a_wide_tables_row_labels_stay_in_view_as_it_scrolls_on_a_phone(
    guarded, site_url, javascript
):
    """A learner scrolling the comparison table sideways lost the Scheme column, and
    with it which row was which; the first column now stays at the left edge of
    whatever scrolls (Material's wrapper with JavaScript, the table without)."""
    tab = guarded(width=PHONE["width"], javascript=javascript)
    tab.page.set_viewport_size(PHONE)
    tab.page.goto(f"{site_url}/part2/06-comparison/", wait_until="load")
    if javascript:
        tab.page.wait_for_selector(".posenc-table .md-typeset__scrollwrap")
    seen = tab.page.evaluate(STICKY_LABELS)
    assert seen["scrolled"] >= 100, seen  # wider than the phone
    (label, other), (label_after, other_after) = seen["before"], seen["after"]
    assert abs(other - seen["scrolled"] - other_after) <= 1, seen  # these moved
    assert label - seen["scrolled"] < seen["left"] - 99  # unstuck: out of view
    assert abs(label_after - seen["left"]) <= 1, seen  # stuck at the edge
