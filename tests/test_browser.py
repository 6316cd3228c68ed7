"""The built site in real Chromium: no request leaves 127.0.0.1, math rendered
by the build and shown without JavaScript, figures follow the scheme toggle, closed
blocks render nothing, listings mount once seen and take keyboard focus before if
they scroll, the palette and Material's start-up restyle only what changed, instant
navigation keeps the stylesheets, links set in code keep their contrast, a formula a
late font widens takes keyboard focus, notebook pages look alike in both schemes and
the same with the whole of JupyterLab's stylesheet, pages with the whole of
Material's, and no selector dropped from Material's matches an element.

Every page is loaded in test_pages_phone_light.py and test_pages_desktop_dark.py."""

import json
import re
import sys
import time
from pathlib import Path

import pytest
import tinycss2

from posenc_docs.figures.spec import PAGE_BACKGROUNDS
from posenc_docs.pages.install import WHEEL_PATH
from tests.conftest import ROOT, mount_widget
from tests.page_checks import FORMULAS, RAW_TEX, VISIBLE_TEXT, contrast

sys.path.insert(0, str(ROOT / "hooks"))  # as MkDocs does for its hooks
import material_bundle  # noqa: E402
import notebooks  # noqa: E402
import unused_css  # noqa: E402

pytestmark = pytest.mark.browser


def visit(guarded, site_url, page, **options):
    return guarded(**options).open(f"{site_url}/{page.parent.as_posix()}/")


def test_the_guard_aborts_and_records_only_requests_leaving_127_0_0_1(
    guarded, site_url
):
    tab = guarded().open(f"{site_url}/install/")
    local = len(tab.requested)
    outcome = tab.page.evaluate("""async () => {
      const tries = ['https://example.com/x.js', 'http://10.0.0.1/y.css', '/'];
      return Promise.all(tries.map(u => fetch(u).then(r => r.ok, () => 'refused')));
    }""")
    assert outcome == ["refused", "refused", True]
    assert tab.blocked == ["https://example.com/x.js", "http://10.0.0.1/y.css"]
    assert local >= 5 and len(tab.requested) == local + 3


def test_math_is_rendered_by_local_katex(guarded, site_url):
    tab = guarded()
    tab.open(f"{site_url}/part1/worked-example/")
    assert tab.page.locator(".katex").count() >= 5
    assert tab.page.evaluate("document.fonts.check('16px KaTeX_Main')")
    assert tab.blocked == [] and tab.errors == []


# The first opaque background behind an element.
BACKGROUND_BEHIND = """e => { for (; e; e = e.parentElement) {
  const colour = getComputedStyle(e).backgroundColor;
  if (colour !== 'rgba(0, 0, 0, 0)') return colour; } }"""


def css_rgb(hex_colour: str) -> str:
    red, green, blue = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def test_figures_follow_the_scheme_toggle(guarded, site_url):
    tab = guarded(color_scheme="light").without_cache()  # asserts what is fetched
    tab.open(f"{site_url}/part1/clocks/")
    image = tab.page.locator("picture.posenc-figure img").first
    image.scroll_into_view_if_needed()
    assert image.evaluate("img => img.currentSrc").endswith("-light.svg")
    assert image.evaluate(BACKGROUND_BEHIND) == css_rgb(PAGE_BACKGROUNDS["light"])
    tab.page.locator('label[for="__palette_1"]').click()  # the toggle to dark
    tab.page.wait_for_function(
        "img => img.currentSrc.endsWith('-dark.svg')", arg=image.element_handle()
    )
    # the page the figures' data colours are chosen against (3:1, test_figures)
    assert image.evaluate(BACKGROUND_BEHIND) == css_rgb(PAGE_BACKGROUNDS["dark"])
    tab.reload()  # the choice is saved: dark only
    tab.requested.clear()
    tab.reload()
    tab.page.locator("picture.posenc-figure img").first.scroll_into_view_if_needed()
    assert not [u for u in tab.requested if u.endswith("-light.svg")]


def test_without_javascript_a_dark_os_reader_gets_light_figures(guarded, site_url):
    """Without JavaScript Material cannot take its dark palette, so the page stays
    light, and so must its figures: a dark figure's light text is unreadable on
    it (its dark sources followed the OS preference, which the page did not)."""
    tab = guarded(color_scheme="dark", width=390, javascript=False).without_cache()
    tab.open(f"{site_url}/part1/clocks/")
    image = tab.page.locator("picture.posenc-figure img").first
    image.scroll_into_view_if_needed()
    image.evaluate("img => img.decode()")
    assert image.evaluate(BACKGROUND_BEHIND) == css_rgb(PAGE_BACKGROUNDS["light"])
    assert image.evaluate("img => img.currentSrc").endswith("-phone-light.svg")
    assert not [url for url in tab.requested if url.endswith("-dark.svg")]


@pytest.mark.parametrize("saved", [None, "slate"], ids=["first visit", "saved"])
def test_a_page_reached_by_instant_navigation_shows_dark_figures_in_dark(
    guarded, site_url, saved
):
    """The figures Material's instant navigation brings in follow the scheme shown,
    as the first page's do: on a dark OS (a first visit), and after the reader
    picked dark on a light OS (the saved choice)."""
    tab = guarded(color_scheme="light" if saved else "dark")
    tab.without_cache().navigate_instantly().open(f"{site_url}/part1/formula/")
    if saved:
        tab.page.locator('label[for="__palette_1"]').click()  # the toggle to dark
    tab.page.locator(f'a.md-nav__link[href="{site_url}/part1/clocks/"]').first.click()
    tab.page.wait_for_url(f"{site_url}/part1/clocks/")
    tab.page.evaluate("window.loadedWith = true")  # gone if the page reloads
    image = tab.page.locator("picture.posenc-figure img").first
    image.scroll_into_view_if_needed()
    image.evaluate("img => img.decode()")
    assert tab.page.evaluate("window.loadedWith") is True  # no reload
    assert image.evaluate("img => img.currentSrc").endswith("-dark.svg")
    assert not [url for url in tab.requested if url.endswith("-light.svg")]


# Every font the page asked for has loaded, then two frames have been laid out.
LOADED_FONTS_LAID_OUT = """() => document.fonts.ready.then(() => new Promise(
  done => requestAnimationFrame(() => requestAnimationFrame(done))))"""


def test_a_formula_widened_by_a_late_font_takes_keyboard_focus(guarded, site_url):
    """KaTeX's fonts can arrive after the widgets' script first looked at the
    formulas (here each is held back 300 ms): every formula wider than a phone's
    screen still takes focus to scroll. A clean-clone run once caught one that a
    late font had widened; fonts that late are no longer swapped in at all
    (`test_a_late_font_moves_nothing`), and the formulas keep the fallback's width."""

    def late(route):
        time.sleep(0.3)
        route.continue_()

    tab = guarded(width=390)
    tab.page.context.route("**/*.woff2", late)
    tab.page.goto(f"{site_url}/part2/04-rope/", wait_until="load")
    tab.page.wait_for_selector("html[data-posenc-widgets=ready]", state="attached")
    tab.page.evaluate(LOADED_FONTS_LAID_OUT)
    formulas = tab.page.evaluate(FORMULAS)
    assert [scrolls for scrolls, _ in formulas] == [focus for _, focus in formulas]
    assert any(scrolls for scrolls, _ in formulas)


def test_a_late_font_moves_nothing(guarded, site_url):
    """The first font the page asks for is held back 300 ms: the page is drawn once,
    without it (hooks/build_assets.py, `fonts_shown_only_if_ready`). With KaTeX's
    own `font-display: block` the formulas widened when it came: 0.071 layout shift
    on this page (a clean-clone run under load measured the same)."""
    from benchmarks.pages import CLS_SCRIPT

    held = []

    def first_late(route):
        if not held:
            held.append(route.request.url)
            time.sleep(0.3)
        route.continue_()

    tab = guarded(width=390)
    tab.page.context.route("**/*.woff2", first_late)
    tab.page.goto(f"{site_url}/part2/07-context-extension/", wait_until="load")
    tab.page.evaluate(LOADED_FONTS_LAID_OUT)
    shifts = tab.page.evaluate(CLS_SCRIPT)
    assert held and shifts["total"] <= 0.001, shifts


@pytest.mark.parametrize("page", ["part1/formula", "notebooks/four_methods"])
def test_math_shows_with_javascript_off(guarded, site_url, page):
    tab = guarded(javascript=False)
    tab.open(f"{site_url}/{page}/")
    assert tab.page.locator(".katex-html").count() >= 5
    assert not [t for t in RAW_TEX if t in tab.page.evaluate(VISIBLE_TEXT)], page


@pytest.mark.parametrize("page", ["part2/04-rope/", "notebooks/four_methods/"])
def test_headings_are_named_without_their_permalink(guarded, site_url, page):
    """hooks/accessible_names.py: a screen reader's list of headings reads "The
    rotation", not "The rotation ¶"; the permalink still shows on hover."""
    tab = guarded(width=1280).open(f"{site_url}/{page}")
    tree = tab.page.locator(".md-content").aria_snapshot()
    names = re.findall(r'heading "([^"]*)"', tree)
    assert len(names) >= 5 and "¶" not in tree, names
    heading = tab.page.locator(".md-content h2").first
    heading.hover()
    link = heading.locator(".headerlink, .anchor-link")
    assert link.is_visible() and link.get_attribute("tabindex") == "-1"
    assert tab.errors == []


# Per heading: [text, lines its box holds, lines its text takes (the permalink out)].
HEADING_LINES = """() => [...document.querySelectorAll('.md-content :is(h1, h2, h3)')]
  .map(h => {
    const text = document.createRange(), link = h.querySelector('.headerlink');
    text.selectNodeContents(h);
    if (link) text.setEndBefore(link);
    const line = parseFloat(getComputedStyle(h).lineHeight);
    const middles = [...text.getClientRects()].map(r => (r.top + r.bottom) / 2)
      .sort((a, b) => a - b);  // one line: its pieces (math too) within half a line
    const textLines = middles.filter((m, i) => !i || m - middles[i - 1] > line / 2);
    const lines = h.getBoundingClientRect().height / line;
    return [h.textContent, Math.round(lines), textLines.length];
  })"""


@pytest.mark.parametrize(
    "page", ["part1/formula/", "part1/clocks/", "part2/07-context-extension/"]
)
def test_no_heading_keeps_a_line_for_its_hidden_permalink(guarded, site_url, page):
    """At 390 px a heading that fills its line wrapped its invisible permalink
    onto a blank line of its own (formula's title was two lines tall)."""
    tab = guarded(width=390).open(f"{site_url}/{page}")
    headings = tab.page.evaluate(HEADING_LINES)
    assert len(headings) >= 4
    assert [h for h in headings if h[1] != h[2]] == []


# A display formula in a box and the box: [formula left, right, box left, right]
# inside the box's borders.
FORMULAS_IN_BOXES = """() => [...document.querySelectorAll(
    '.md-typeset :is(.admonition, details) div.arithmatex')].map(f => {
  const box = f.closest('.admonition, details'), b = box.getBoundingClientRect();
  const style = getComputedStyle(box), r = f.getBoundingClientRect();
  return [r.left, r.right, b.left + parseFloat(style.borderLeftWidth),
          b.right - parseFloat(style.borderRightWidth)];
})"""


@pytest.mark.parametrize("page", ["part2/02-sinusoidal/", "api/scaling/"])
def test_a_formula_in_a_box_keeps_off_its_borders(guarded, site_url, page):
    """Material widens display formulas to a phone's edges, and their background
    then covered an admonition's side borders."""
    tab = guarded(width=390).open(f"{site_url}/{page}")
    tab.page.evaluate("document.querySelectorAll('details').forEach(d => d.open = 1)")
    boxes = tab.page.evaluate(FORMULAS_IN_BOXES)
    assert boxes
    assert [b for b in boxes if b[0] < b[2] - 0.5 or b[1] > b[3] + 0.5] == []


# The content's first title and paragraph, in document order.
READING_ORDER = """() => [...document.querySelectorAll('.md-content__inner :is(h1, p)')]
  .slice(0, 2).map(e => [e.tagName, ...e.classList].join(' '))"""


def test_notebook_pages_link_their_executed_source(guarded, site_url, html_pages):
    """Each notebook page links its .py and its .ipynb, and both download, from
    the paragraph right under its title (a reader meets the title first)."""
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
        assert tab.page.evaluate(READING_ORDER) == ["H1", "P posenc-download"], page
        tab.page.context.close()


# Each element's tag and classes with a hash of its computed style and of each of
# its generated boxes (before, after, marker) that has content, over the properties
# named by `declared` (a shorthand stands for its longhands). The styles themselves
# stay in the page (window.posencStyles) to name what differs.
COMPUTED_STYLES = """declared => {
  const names = [...getComputedStyle(document.body)].filter(name =>
    declared.some(d => name === d || name.startsWith(d + '-')));
  const hash = text => {
    let h = 0x811c9dc5;  // FNV-1a
    for (let i = 0; i < text.length; i++) {
      h = Math.imul(h ^ text.charCodeAt(i), 16777619);
    }
    return h >>> 0;
  };
  const styleOf = (el, pseudo) => {
    const style = getComputedStyle(el, pseudo);
    if (pseudo && ['none', 'normal'].includes(style.content)) return 'none';
    return names.map(name => style.getPropertyValue(name)).join(';');
  };
  const styles = [...document.querySelectorAll('body *')].map(el => [
    `${el.tagName}.${el.className}`.slice(0, 80),
    [null, '::before', '::after', '::marker'].map(p => styleOf(el, p)).join('|')]);
  window.posencStyles = {names, styles};
  return styles.map(([element, style]) => [element, hash(style)]);
}"""
DECLARED = re.compile(r"[{;]\s*(-?[a-z][a-z-]*)\s*:")  # not custom properties

# Web fonts in, transitions and animations jumped to their end (those that have
# one), then two frames for what they started.
TRANSITIONS_ENDED = """async () => {
  await document.fonts.ready;
  document.getAnimations().forEach(a => {
    if (a.effect.getTiming().iterations !== Infinity) a.finish();
  });
  return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
}"""


def styled_differently(guarded, url, sheet, whole_css, *, minimum, **options):
    """The elements at ``url`` styled differently with the stylesheet served as
    ``sheet`` (a URL glob) replaced by ``whole_css``, over what ``whole_css``
    declares; more than ``minimum`` elements compared."""
    declared = sorted(set(DECLARED.findall(whole_css)))
    assert {"color", "display", "margin", "font-family"} <= set(declared)
    styles, tabs, css = {}, {}, {"body": whole_css, "content_type": "text/css"}
    for whole in (False, True):
        tabs[whole] = tab = guarded(**options)
        if whole:
            tab.page.route(sheet, lambda route: route.fulfill(**css))
        tab.open(url).page.evaluate(TRANSITIONS_ENDED)
        styles[whole] = tab.page.evaluate(COMPUTED_STYLES, declared)
    assert len(styles[True]) > minimum, url
    pairs = enumerate(zip(styles[False], styles[True], strict=True))
    differ = [i for i, (shipped, whole) in pairs if shipped != whole]
    named = [(styles[False][i][0], style_difference(tabs, i)) for i in differ[:5]]
    for tab in tabs.values():
        tab.page.context.close()
    return named + [styles[False][i][0] for i in differ[5:]]


def style_difference(tabs, index: int) -> list[str]:
    """What COMPUTED_STYLES saw differ on element ``index``: property, then its
    value as shipped / with the whole stylesheet."""
    names = tabs[False].page.evaluate("() => window.posencStyles.names")
    script = f"() => window.posencStyles.styles[{index}][1].split('|')"
    shipped, whole = (tabs[key].page.evaluate(script) for key in (False, True))
    boxes = zip(["", "::before", "::after", "::marker"], shipped, whole, strict=True)
    return [
        f"{box and box + ' '}{name}: {mine} / {theirs}"
        for box, ours, wholes in boxes
        for name, mine, theirs in zip(  # a generated box without content: "none"
            names, ours.split(";"), wholes.split(";"), strict=False
        )
        if mine != theirs
    ]


@pytest.fixture(scope="module")
def whole_jupyterlab_css(tmp_path_factory):
    """The notebook stylesheet as it would ship without `unused_css.for_page`."""
    nb2html = pytest.importorskip("mkdocs_jupyter.nbconvert2").nb2html
    notebook = tmp_path_factory.mktemp("nb") / "tiny.py"
    notebook.write_text("# %% [markdown]\n# Tiny.\n\n# %%\n1 + 1\n")
    whole = notebooks.jupyterlab_css(nb2html(str(notebook), execute=False))
    return whole + "\n" + notebooks.SITE_CSS.read_text(encoding="utf-8")


@pytest.mark.parametrize(("scheme", "width"), [("light", 390), ("dark", 1280)])
def test_notebook_pages_look_the_same_with_jupyterlabs_whole_stylesheet(
    guarded, site_url, html_pages, whole_jupyterlab_css, scheme, width
):
    """What hooks/unused_css.py drops styled nothing on the page."""
    for page in [page for page in html_pages if page.parts[0] == "notebooks"]:
        differ = styled_differently(
            guarded, f"{site_url}/{page.parent.as_posix()}/",
            "**/assets/stylesheets/notebook.*.css", whole_jupyterlab_css,
            color_scheme=scheme, width=width, minimum=500,
        )  # fmt: skip
        assert not differ, f"{page}: {len(differ)} styled differently: {differ[:5]}"


# A notebook page's first code cell (its editor box, what shows of it) and output.
NOTEBOOK_CELL = """() => {
  const style = e => getComputedStyle(e);
  const editor = document.querySelector('.jp-CodeCell .jp-InputArea-editor');
  const border = ['Top', 'Right', 'Bottom', 'Left'].map(side => {
    const s = style(editor);
    return parseFloat(s[`border${side}Width`]) === 0
      || s[`border${side}Color`] === 'rgba(0, 0, 0, 0)' ? 'none'
      : `${s[`border${side}Width`]} ${s[`border${side}Color`]}`;
  });
  const shown = [editor, editor.querySelector('.highlight-ipynb')]
    .map(e => style(e).backgroundColor);
  return {border, backgrounds: [...new Set(shown)],
          output: style(document.querySelector('.jp-OutputArea-output pre')).color,
          prose: style(document.querySelector('.md-content p')).color,
          height: document.documentElement.scrollHeight};
}"""
CODE_BLOCK_BACKGROUND = """() => getComputedStyle(
  document.querySelector('.md-typeset .highlight pre > code')).backgroundColor"""


def test_notebook_pages_look_alike_in_both_schemes(guarded, site_url):
    """In Material's dark scheme JupyterLab's own dark theme
    ([data-md-color-scheme=slate] .jupyter-wrapper) outranked hooks/notebook.css:
    code cells had a grey border and a #212121 frame around the code's background,
    output was white beside grey prose, cells were padded (the page 126 px taller).
    Now a code cell is the site's code block, output the page's text colour, and
    the page as tall as in light."""
    cells = {}
    for scheme in ("light", "dark"):
        tab = guarded(width=390, color_scheme=scheme)
        code = tab.open(f"{site_url}/part2/04-rope/").page.evaluate(
            CODE_BLOCK_BACKGROUND
        )
        cell = tab.open(f"{site_url}/notebooks/sinusoidal_tour/").page.evaluate(
            NOTEBOOK_CELL
        )
        assert cell["border"] == ["none"] * 4, scheme
        assert cell["backgrounds"] == [code], scheme
        assert cell["output"] == cell["prose"], scheme
        cells[scheme] = cell
    assert abs(cells["dark"]["height"] - cells["light"]["height"]) <= 4


@pytest.fixture(scope="module")
def whole_material_css():
    """Material's stylesheet as it would ship without hooks/site_css.py."""
    import material

    assets = Path(material.__file__).parent / "templates" / "assets"
    (stylesheet,) = (assets / "stylesheets").glob("main.*.min.css")
    return material_bundle.patched_stylesheet(stylesheet.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("scheme", "width"), [("light", 390), ("dark", 1280)])
def test_pages_look_the_same_with_materials_whole_stylesheet(
    guarded, site_url, whole_material_css, scheme, width
):
    """What hooks/site_css.py drops styled nothing: custom properties included (a
    palette input defines its scheme's, read by the palette stylesheet). On lab:
    Material's tables, details and admonitions; the palette inputs are on every
    page."""
    differ = styled_differently(
        guarded, f"{site_url}/lab/", "**/assets/stylesheets/main.*.min.css",
        whole_material_css, color_scheme=scheme, width=width, minimum=1000,
    )  # fmt: skip
    assert not differ, f"lab: {len(differ)} styled differently: {differ[:5]}"


# The selectors given that match an element, with pseudo-elements and the state
# pseudo-classes taken out (so that they match more, never less).
PSEUDO_ELEMENTS = r"::?(before|after|marker|placeholder|selection|-webkit-[\w-]+)"
STATES = (
    r":(hover|focus-visible|focus-within|focus|active|checked|target|visited"
    r"|disabled|indeterminate|invalid|valid)\b"
)
MATCHING = """([selectors, pseudoElements, states]) => selectors.filter(selector => {
  const bare = selector.replace(new RegExp(pseudoElements, 'g'), '')
    .replace(new RegExp(states, 'g'), '');
  try { return document.querySelector(bare.trim() || '*') !== null; }
  catch { return false; }  // a selector this browser does not parse
})"""


def test_no_selector_dropped_from_materials_stylesheet_matches(
    guarded, site_url, site_dir, whole_material_css
):
    """No page, with search open and its results shown, has an element that a
    selector hooks/site_css.py dropped would match."""

    def selectors(css):
        rules = unused_css._style_rules(unused_css._parse(css))
        return {
            tinycss2.serialize(selector).strip()
            for rule in rules
            for selector in unused_css.selectors(rule.prelude)
        }

    (shipped,) = (site_dir / "assets" / "stylesheets").glob("main.*.min.css")
    dropped = sorted(selectors(whole_material_css) - selectors(shipped.read_text()))
    assert len(dropped) > 100
    for page in ("", "lab/", "api/rope/", "notebooks/four_methods/", "404.html"):
        tab = guarded(width=390).open(f"{site_url}/{page}")
        matched = tab.page.evaluate(MATCHING, [dropped, PSEUDO_ELEMENTS, STATES])
        tab.page.keyboard.press("/")  # Material's search shortcut
        tab.page.keyboard.type("rotary")
        tab.page.wait_for_selector(".md-search-result__item")
        matched += tab.page.evaluate(MATCHING, [dropped, PSEUDO_ELEMENTS, STATES])
        assert matched == [], f"{page}: {matched}"
        tab.page.context.close()


# Each collapsed block's listings: their boxes and the width of their text.
CLOSED_LISTINGS = """() => [...document.querySelectorAll('details:not([open]) pre')]
  .map(pre => [pre.getClientRects().length, pre.scrollWidth])"""


def test_collapsed_listings_are_not_rendered_until_opened(guarded, site_url):
    """Closed blocks' content has no boxes, so Material's start-up measures nothing
    inside them; a reader who opens one sees its listing, copy button included."""
    tab = guarded(width=390).open(f"{site_url}/lab/")
    closed = tab.page.evaluate(CLOSED_LISTINGS)
    assert len(closed) >= 5 and all(box == [0, 0] for box in closed), closed
    first = (
        "[...document.querySelectorAll('details')]"
        ".findIndex(d => !d.open && d.querySelector('pre'))"
    )
    block = tab.page.locator("details").nth(tab.page.evaluate(first))
    block.locator("summary").click()
    listing = block.locator("pre").first
    assert listing.is_visible() and listing.bounding_box()["height"] > 50
    copy = listing.locator("button[data-md-type='copy']")
    copy.wait_for(state="attached")  # Material mounts a listing once it is seen
    assert copy.count() == 1
    assert tab.blocked == [] and tab.errors == []


LISTINGS = """() => [...document.querySelectorAll('.highlight > pre > code')]
  .map(code => ({scrolls: code.scrollWidth > code.clientWidth,
                 focusable: code.tabIndex === 0,
                 mounted: !!code.parentElement.querySelector('.md-code__nav')}))"""


def test_listings_mount_when_seen_and_scroll_by_keyboard_before(guarded, site_url):
    """Material mounts a listing (copy button, measuring) only once it is on screen
    (content.lazy): mounting all of them forced a layout for each. Before
    that, a listing too wide for the phone already takes keyboard focus (the widgets
    script), so a keyboard can scroll it (axe-core: scrollable-region-focusable)."""
    tab = guarded(width=390).open(f"{site_url}/lab/")
    tab.page.wait_for_selector("html[data-posenc-widgets=ready]", state="attached")
    listings = tab.page.evaluate(LISTINGS)
    unmounted = [listing for listing in listings if not listing["mounted"]]
    assert len(unmounted) > len(listings) / 2, listings  # not seen yet
    assert sum(listing["scrolls"] for listing in unmounted) >= 3, listings
    assert all(listing["scrolls"] == listing["focusable"] for listing in listings)
    last = tab.page.locator(".md-typeset > .highlight > pre > code").last
    last.scroll_into_view_if_needed()
    last.locator("xpath=..").locator(".md-code__nav").wait_for(state="attached")
    assert tab.blocked == [] and tab.errors == []


# Each listing's file name whose text runs under its copy button: [name, overlap px].
NAMES_UNDER_COPY = """() => [...document.querySelectorAll('.highlight')]
  .flatMap(block => {
    const name = block.querySelector(':scope > .filename');
    const button = block.querySelector('.md-code__nav');
    if (!name || !button || !name.getClientRects().length) return [];
    const text = document.createRange();
    text.selectNodeContents(name);
    const [t, b] = [text.getBoundingClientRect(), button.getBoundingClientRect()];
    const under = t.right > b.left && t.bottom > b.top && t.top < b.bottom;
    return under ? [[name.textContent.trim(), Math.round(t.right - b.left)]] : [];
  })"""


# Each output in columns whose first line runs under its copy button, with the part
# under it: [first line, overlap px].
FIRST_LINES_UNDER_COPY = """() => [...document.querySelectorAll('.posenc-aligned')]
  .flatMap(block => {
    const code = block.querySelector('pre > code');
    const button = block.querySelector('.md-code__nav');
    if (!button || !code.firstChild) return [];
    const text = document.createTreeWalker(code, NodeFilter.SHOW_TEXT).nextNode();
    const first = text.textContent.split('\\n')[0];  // in the first text node
    const line = document.createRange();
    line.setStart(text, 0);
    line.setEnd(text, first.length);
    const [t, b] = [line.getBoundingClientRect(), button.getBoundingClientRect()];
    const under = t.right > b.left && t.bottom > b.top && t.top < b.bottom;
    return under ? [[first, Math.round(t.right - b.left)]] : [];
  })"""


def seen_with_buttons(tab, selector: str) -> None:
    """Scroll to each listing ``selector`` matches (at least one): Material adds
    a listing's copy button once it is seen."""
    listings = tab.page.locator(selector)
    assert listings.count() >= 1
    for i in range(listings.count()):
        listings.nth(i).scroll_into_view_if_needed()
        listings.nth(i).locator(".md-code__nav").wait_for(state="attached")


@pytest.mark.parametrize("page", ["part2/04-rope/", "part3/base/"])
def test_output_first_lines_stay_clear_of_the_copy_button_on_a_phone(
    guarded, site_url, page
):
    """extra.css: output in columns scrolls sideways, so its first line cannot wrap
    before the copy button; on a phone it starts below it (04: the first line's
    last digits were under it)."""
    tab = guarded(width=390).open(f"{site_url}/{page}")
    seen_with_buttons(tab, ".md-typeset > .posenc-aligned")
    assert tab.page.evaluate(FIRST_LINES_UNDER_COPY) == []
    assert tab.errors == []


# Listings whose text, scrolled to its end, runs under their copy button: the
# first characters of each and how far (px) the text reaches past the button's left.
# Arguments: the listings, then within one its scrolling text and its copy button.
ENDS_UNDER_COPY = """([listings, scroller, copy]) =>
  [...document.querySelectorAll(listings)].flatMap(listing => {
    const code = listing.querySelector(scroller);
    const button = listing.querySelector(copy);
    if (!button || !code) return [];
    code.scrollLeft = code.scrollWidth;
    const text = document.createRange();
    text.selectNodeContents(code);
    const b = button.getBoundingClientRect();
    const right = Math.max(...[...text.getClientRects()]
      .filter(t => t.bottom > b.top && t.top < b.bottom).map(t => t.right));
    code.scrollLeft = 0;
    const start = code.textContent.slice(0, 40);
    return right > b.left ? [[start, Math.round(right - b.left)]] : [];
  })"""
LISTING_PARTS = [".md-typeset pre", ":scope > code", ":scope > .md-code__nav"]
CELL_PARTS = [".jp-CodeCell", ".highlight-ipynb pre", ".zeroclipboard-container"]


@pytest.mark.parametrize(
    "page", ["install/", "part2/07-context-extension/", "part2/pitfalls/"]
)
def test_listing_ends_stay_clear_of_the_copy_button_on_a_phone(guarded, site_url, page):
    """extra.css: scrolled to its end, a listing's line stops left of Material's
    copy button (Install's one-line pip command ended under it)."""
    tab = guarded(width=390).open(f"{site_url}/{page}")
    seen_with_buttons(tab, ".md-typeset pre:has(> code):visible")
    assert tab.page.evaluate(ENDS_UNDER_COPY, LISTING_PARTS) == []
    assert tab.errors == []


def test_notebook_code_starts_below_its_copy_button_on_a_phone(guarded, site_url):
    """hooks/notebook.css: a code cell has no title bar, so mkdocs-jupyter's copy
    button sat on its first line, over 'SinusoidalPositionalEn…' on a phone."""
    tab = guarded(width=390).open(f"{site_url}/notebooks/four_methods/")
    assert tab.page.locator(".jp-CodeCell .zeroclipboard-container").count() >= 5
    assert tab.page.evaluate(ENDS_UNDER_COPY, CELL_PARTS) == []
    assert tab.errors == []


# Inline formulas followed by punctuation that starts the next line: the TeX and
# the punctuation of each.
PUNCTUATION_AFTER_A_BREAK = """() => [...document.querySelectorAll('span.arithmatex')]
  .flatMap(formula => {
    const next = formula.nextSibling;
    if (!next || next.nodeType !== Node.TEXT_NODE || !/^[,.;:!?)]/.test(next.data))
      return [];
    const mark = document.createRange();
    mark.setStart(next, 0);
    mark.setEnd(next, 1);
    const [p, f] = [mark.getBoundingClientRect(), formula.getBoundingClientRect()];
    const tex = formula.querySelector('annotation').textContent;
    return p.top >= f.bottom - 2 ? [[tex, next.data[0]]] : [];
  })"""


@pytest.mark.parametrize(
    "page", ["part1/injection/", "part1/clocks/", "part2/07-context-extension/"]
)
def test_no_line_starts_with_the_punctuation_after_a_formula_on_a_phone(
    guarded, site_url, page
):
    """hooks/katex.py keeps a short formula and the comma after it on one line:
    at 390 px, injection's "by sqrt(d)," left its comma alone on the next line."""
    tab = guarded(width=390).open(f"{site_url}/{page}")
    assert tab.page.locator(".posenc-nobreak").count() >= 2
    assert tab.page.evaluate(PUNCTUATION_AFTER_A_BREAK) == []
    assert tab.errors == []


# Parts of listings' file names (between slashes) that wrap onto two lines.
NAME_PARTS_SPLIT = """() => [...document.querySelectorAll('.highlight > .filename')]
  .flatMap(name => [...name.childNodes].filter(part => {
    const range = document.createRange();
    range.selectNodeContents(part);
    return part.nodeType === Node.TEXT_NODE && range.getClientRects().length > 1;
  }).map(part => part.textContent))"""


@pytest.mark.parametrize("page", ["part3/windows/", "part2/07-context-extension/"])
def test_listing_names_stay_clear_of_the_copy_button_on_a_phone(
    guarded, site_url, page
):
    """extra.css: a long file name (posenc_docs/examples/part3_windows/...) wraps
    before Material's copy button instead of running under it (by 19 px), and
    after a "/", not inside a word."""
    tab = guarded(width=390).open(f"{site_url}/{page}")
    names = tab.page.locator(".md-typeset > .highlight > .filename")
    assert names.count() >= 3
    for i in range(names.count()):  # Material adds the button once a listing is seen
        names.nth(i).scroll_into_view_if_needed()
        names.nth(i).locator("xpath=..").locator(".md-code__nav").wait_for()
    assert tab.page.evaluate(NAMES_UNDER_COPY) == []
    assert tab.page.evaluate(NAME_PARTS_SPLIT) == []  # hooks/listings.py
    assert tab.errors == []


LISTING_BUTTONS = """() => ({
  holders: document.querySelectorAll('.highlight .md-code__nav').length,
  navs: document.querySelectorAll('.highlight nav').length })"""


def test_listing_buttons_are_not_landmarks(guarded, site_url):
    """hooks/material_bundle.py: Material held each listing's copy button in an
    unnamed <nav>, a navigation landmark per listing (9 of 21 on 07) in a screen
    reader's list of landmarks; a <div> of the same class holds it."""
    tab = guarded(width=1280).open(f"{site_url}/part2/07-context-extension/")
    listings = tab.page.locator(".md-typeset > .highlight")
    for i in range(listings.count()):  # Material adds the buttons once one is seen
        listings.nth(i).scroll_into_view_if_needed()
        listings.nth(i).locator(".md-code__nav").wait_for(state="attached")
    found = tab.page.evaluate(LISTING_BUTTONS)
    assert found["holders"] >= 5 and found["navs"] == 0, found
    assert tab.errors == []


@pytest.mark.parametrize("width", [390, 1280])
def test_every_navigation_landmark_has_a_name(guarded, site_url, width):
    """hooks/accessible_names.py and material_bundle.py: a screen reader's list of
    landmarks names each navigation (Material's sections had none: 4 on every
    page, and a listing's buttons one each)."""
    tab = guarded(width=width).open(f"{site_url}/part2/07-context-extension/")
    cdp = tab.page.context.new_cdp_session(tab.page)
    tree = cdp.send("Accessibility.getFullAXTree")
    names = [
        node.get("name", {}).get("value", "")
        for node in tree["nodes"]
        if node.get("role", {}).get("value") == "navigation" and not node["ignored"]
    ]
    assert all(names) and len(names) >= 3, names  # the phone's drawer is shut
    if width > 1000:  # the sections, in the sidebar
        assert {"Lab", "Part I — Positional encoding"} <= set(names), names


# Records each time the body gains (true) or loses (false) Material's mark for a
# palette switch, from before any of the page's scripts run.
RECORD_SWITCHING = """
window.switchingMarks = [];
new MutationObserver(records => records.forEach(() => window.switchingMarks.push(
  document.body.hasAttribute('data-md-color-switching'))))
  .observe(document, {subtree: true, attributeFilter: ['data-md-color-switching']});
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_palette_restyles_the_page_only_when_the_reader_switches(
    guarded, site_url, scheme
):
    """hooks/material_bundle.py: a page whose palette is already on the body
    (light, or the reader's saved choice) loads without the switching mark, a full
    restyle; flipping the toggle still sets it, then clears it."""
    tab = guarded(color_scheme=scheme)
    tab.page.add_init_script(RECORD_SWITCHING)
    tab.open(f"{site_url}/part1/order/")  # in dark, a first visit switches once
    tab.open(f"{site_url}/part1/formula/")
    body_scheme = "document.body.getAttribute('data-md-color-scheme')"
    loaded = tab.page.evaluate(body_scheme)
    assert loaded == {"light": "default", "dark": "slate"}[scheme]
    assert tab.page.evaluate("window.switchingMarks") == []
    other = 1 if scheme == "light" else 0
    tab.page.locator(f'label[for="__palette_{other}"]').click()
    tab.page.wait_for_function(f"{body_scheme} !== '{loaded}'")
    tab.page.wait_for_function("window.switchingMarks.length === 2")
    assert tab.page.evaluate("window.switchingMarks") == [True, False]
    assert tab.errors == []


# At each frame until Material's script has run: the body's colour scheme (null
# before the body is parsed) and whether Material's script has run.
RECORD_FRAMES = """
window.frames_ = [];
requestAnimationFrame(function frame() {
  window.frames_.push([document.body && document.body.dataset.mdColorScheme,
                       Boolean(window.document$),
                       document.querySelectorAll("form[data-md-component=palette] "
                                                 + "label:not([hidden])").length]);
  if (!window.document$) requestAnimationFrame(frame);
});
"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("page", ["part1/formula/", "404.html"])
def test_the_first_paint_comes_before_materials_script_in_the_readers_scheme(
    guarded, site_url, scheme, page
):
    """hooks/material_bundle.py and overrides/main.html: a page paints at least
    once before Material's script runs (which forced the first layout of the whole
    page inside its own task), and on a first visit every frame shows the OS
    preference's scheme: a dark reader's page painted light until that script ran.
    The last frame before it shows the palette toggle, one button."""
    tab = guarded(color_scheme=scheme)
    tab.page.add_init_script(RECORD_FRAMES)
    tab.open(f"{site_url}/{page}")
    tab.page.wait_for_function("window.frames_.at(-1)[1]")
    frames = tab.page.evaluate("window.frames_")
    painted = [shown for shown, *_ in frames if shown is not None]
    expected = {"light": "default", "dark": "slate"}[scheme]
    assert painted and set(painted) == {expected}, frames
    assert [material for shown, material, _ in frames if shown][0] is False, frames
    assert frames[-2][1:] == [False, 1], frames  # before Material: one toggle
    tab.page.wait_for_selector("html[data-posenc-widgets=ready]", state="attached")
    assert (
        tab.page.locator("form[data-md-component=palette] label:visible").count() == 1
    )
    assert tab.errors == []


def test_without_materials_script_the_widgets_mount_and_without_js_none_loads(
    guarded, site_url
):
    """hooks/material_bundle.py and widgets/index.js: when Material's script fails
    to load before the widgets module has run (blocked, with the module slow to
    arrive), the widgets still mount, their figures in place, instead of waiting for
    an event that had passed; a reader without JavaScript downloads no script."""
    tab = guarded()

    def slowly(route):
        time.sleep(1)
        route.continue_()

    tab.page.route("**/assets/javascripts/bundle.*.min.js", lambda r: r.abort())
    tab.page.route("**/javascripts/widgets/index.js", slowly)
    tab.page.goto(f"{site_url}/part2/07-context-extension/", wait_until="load")
    tab.page.wait_for_selector("html[data-posenc-widgets=ready]", state="attached")
    assert tab.page.evaluate("window.document$") is None
    mount_widget(tab.page, "context-extension")
    plain = guarded(javascript=False)
    plain.open(f"{site_url}/part1/formula/")
    scripts = [url for url in plain.requested if url.endswith(".js")]
    assert scripts == [], scripts


# Records each write to a color-scheme meta (a new one, or its content) and
# whether the body had been parsed by then, from before any of the page's scripts.
RECORD_COLOR_SCHEME = """
window.colorSchemeWrites = [];
new MutationObserver(records => records.forEach(r => {
  const metas = r.type === 'attributes' ? [r.target] : [...r.addedNodes];
  metas.filter(m => m.nodeName === 'META' && m.name === 'color-scheme').forEach(m =>
    window.colorSchemeWrites.push([m.content, document.body !== null]));
})).observe(document, {subtree: true, childList: true, attributeFilter: ['content']});
"""
COMPUTED_SCHEME = "getComputedStyle(document.querySelector('header')).colorScheme"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_color_scheme_meta_is_right_before_the_body_and_left_alone(
    guarded, site_url, scheme
):
    """overrides/main.html and hooks/material_bundle.py: the page's one
    color-scheme meta holds the scheme shown (OS preference on a first visit, the
    saved choice after) before the body is parsed; Material's start-up does not
    write it, which would restyle every element; flipping the toggle does."""
    tab = guarded(color_scheme=scheme)
    tab.page.add_init_script(RECORD_COLOR_SCHEME)
    for page in ("part1/order/", "part1/formula/"):  # a first visit, then saved
        tab.open(f"{site_url}/{page}")
        metas = tab.page.evaluate(
            "[...document.querySelectorAll('meta[name=color-scheme]')]"
            ".map(m => m.content)"
        )
        assert metas == [tab.page.evaluate(COMPUTED_SCHEME)] == [scheme], page
        writes = tab.page.evaluate("window.colorSchemeWrites")
        assert all(not parsed for _, parsed in writes), (page, writes)
    other = 1 if scheme == "light" else 0
    tab.page.locator(f'label[for="__palette_{other}"]').click()
    flipped = {"light": "dark", "dark": "light"}[scheme]
    tab.page.wait_for_function(f"{COMPUTED_SCHEME} === '{flipped}'")
    tab.page.wait_for_function(
        f"document.querySelector('meta[name=color-scheme]').content === '{flipped}'"
    )
    assert tab.errors == []


FOCUSED_NAME = "document.activeElement.getAttribute('aria-label')"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_palette_toggle_a_keyboard_reaches_says_what_it_does(
    guarded, site_url, scheme
):
    """overrides/main.html: on a first visit Tab reaches the radio of the scheme
    shown, named for the switch it makes (Material checks none until a click, so
    Tab reached "Switch to dark mode" on a dark page); after a switch, the other."""
    tab = guarded(color_scheme=scheme).open(f"{site_url}/part1/order/")
    other = {"light": "dark", "dark": "light"}[scheme]
    for _ in range(8):  # skip link, menu, ..., the palette's radios
        tab.page.keyboard.press("Tab")
        if tab.page.evaluate("document.activeElement.name === '__palette'"):
            break
    assert tab.page.evaluate(FOCUSED_NAME) == f"Switch to {other} mode"
    tab.page.keyboard.press("Space")  # the same radio: nothing changes
    assert tab.page.evaluate(COMPUTED_SCHEME) == scheme
    tab.page.locator("label[for^='__palette_']:not([hidden])").click()
    tab.page.wait_for_function(f"{COMPUTED_SCHEME} === '{other}'")
    checked = "[data-md-component=palette] input:checked"
    assert tab.page.locator(checked).get_attribute("aria-label") == (
        f"Switch to {scheme} mode"
    )
    assert tab.errors == []


def test_a_class_change_on_the_root_restyles_only_what_depends_on_it(guarded, site_url):
    """hooks/material_bundle.py: with Material's `table:not([class]) td > :first-
    child` Chromium restyled every element (3,557 on this page) whenever the root's
    classes changed, as Material's start-up changes them, and with its other
    `table:not([class])` rules every link and table part (463 here). Patched, a
    class no rule tests restyles the root at most (the probe also sets an inline
    style of the root, which does not inherit, so that the trace has a restyle)."""
    tab = guarded(width=390).open(f"{site_url}/api/rope/")
    tab.page.evaluate("document.fonts.ready")
    browser = tab.page.context.browser
    browser.start_tracing(page=tab.page, categories=["devtools.timeline"])
    tab.page.evaluate(
        "document.documentElement.classList.add('posenc-probe');"
        "document.documentElement.style.outlineOffset = '1px';"
        "document.body.offsetHeight"
    )
    trace = json.loads(browser.stop_tracing())
    restyled = [
        event["args"].get("elementCount", 0)
        for event in trace["traceEvents"]
        if event["name"] == "UpdateLayoutTree" and event.get("ph") == "X"
    ]
    elements = tab.page.evaluate("document.getElementsByTagName('*').length")
    assert restyled and sum(restyled) < 10, (restyled, elements)  # 1


# Brings style and layout up to date just before Material's script runs (the
# parser runs pending microtasks before a script), marks that moment in the trace,
# and records every table Material's start-up takes out of the page.
MARK_MATERIAL_START = """
window.tablesMoved = 0;
new MutationObserver((records, observer) => {
  if (!document.querySelector('script[src*="/bundle."]')) return;
  observer.disconnect();
  document.documentElement.offsetHeight;
  console.timeStamp('posenc-material-starts');
  new MutationObserver(records => records.forEach(r => r.removedNodes.forEach(
    node => { if (node.nodeName === 'TABLE') window.tablesMoved += 1; })))
    .observe(document.body, {childList: true, subtree: true});
}).observe(document, {childList: true, subtree: true});
"""


def test_materials_start_up_restyles_a_small_part_of_the_page(guarded, site_url):
    """overrides/main.html, hooks/material_bundle.py and hooks/tables.py: once
    the page is styled, Material's start-up and the fonts it waits for never
    restyle more than a quarter of its elements at once. Unpatched, Material
    dropped the root's no-js class (Chromium restyled all 3,557 elements of
    api/rope: its `.no-js ... :nth-child(n)` rules reach anything), rewrote each
    stylesheet link's URL (all again, the sheets re-applied) and moved each table
    into its scroll wrapper (the lab page has 14)."""
    tab = guarded(width=390)
    tab.page.add_init_script(MARK_MATERIAL_START)
    browser = tab.page.context.browser
    browser.start_tracing(page=tab.page, categories=["devtools.timeline"])
    tab.open(f"{site_url}/lab/")
    tab.page.evaluate("document.fonts.ready")
    tab.page.wait_for_timeout(300)
    events = json.loads(browser.stop_tracing())["traceEvents"]
    (start,) = [
        event["ts"]
        for event in events
        if event["name"] == "TimeStamp"
        and event["args"]["data"].get("message") == "posenc-material-starts"
    ]
    restyled = [
        event["args"].get("elementCount", 0)
        for event in events
        if event["name"] == "UpdateLayoutTree" and event.get("ph") == "X"
        and event["ts"] > start
    ]  # fmt: skip
    elements = tab.page.evaluate("document.getElementsByTagName('*').length")
    assert restyled and max(restyled) < elements / 4, (restyled, elements)
    assert tab.page.evaluate("window.tablesMoved") == 0
    assert tab.page.locator(".md-typeset__table > table").count() == 14
    assert tab.page.locator(".md-typeset__table .md-typeset__table").count() == 0
    assert tab.errors == []


def test_instant_navigation_keeps_the_stylesheets_it_loaded_with(guarded, site_url):
    """hooks/material_bundle.py: Material's instant navigation compares the head's
    elements by their markup with absolute URLs; the page as loaded keeps its
    stylesheet links as written (see above), and still they match the next page's,
    so none is removed, added again or fetched again."""
    tab = guarded().without_cache().navigate_instantly()
    tab.open(f"{site_url}/api/rope/")
    sheets = "[...document.querySelectorAll('link[rel=stylesheet]')]"
    written = tab.page.evaluate(f"{sheets}.map(l => l.getAttribute('href'))")
    assert written and all(href.startswith("../../") for href in written), written
    loaded = tab.page.evaluate(f"(window.loadedWith = {sheets}).map(l => l.href)")
    for page in ("", "notebooks/four_methods/", "part1/formula/"):  # other depths
        tab.requested.clear()
        tab.page.locator(f'a.md-nav__link[href="{site_url}/{page}"]').first.click()
        tab.page.wait_for_url(f"{site_url}/{page}")
        tab.settle()
        assert not set(loaded) & set(tab.requested), page
        kept = tab.page.evaluate("window.loadedWith.map(l => l.isConnected)")
        assert kept == [True] * len(written), page  # and the page was not reloaded
    assert tab.errors == []


LINKED_CODE_COLOURS = """() => [...document.querySelectorAll('.md-typeset a code')]
  .map(c => [getComputedStyle(c).color, getComputedStyle(c).backgroundColor])"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_links_set_in_code_have_4_5_to_1_contrast(guarded, site_url, scheme):
    """docs/stylesheets/extra.css: in dark mode Material's indigo link on its code
    background was 4.1:1 (axe-core's color-contrast failed it on five pages)."""
    tab = guarded(color_scheme=scheme).open(f"{site_url}/part2/11-next/")
    colours = tab.page.evaluate(LINKED_CODE_COLOURS)
    assert len(colours) >= 5
    assert min(contrast(fg, bg) for fg, bg in colours) >= 4.5, set(map(tuple, colours))


def test_the_closed_navigation_drawer_takes_no_keyboard_focus(guarded, site_url):
    """At 640 px the drawer is off-screen until opened; its links must not be tab
    stops then (they were: about fifty invisible stops before the content), and
    must be as soon as it opens."""
    tab = guarded(width=640).open(f"{site_url}/part1/picture/")
    links = tab.page.locator(".md-sidebar--primary a")
    reachable = (
        "els => els.filter(a => a.checkVisibility({visibilityProperty: true})).length"
    )
    focus = "a => { a.focus(); return document.activeElement === a; }"
    assert links.count() > 20 and links.evaluate_all(reachable) == 0
    assert not links.first.evaluate(focus)  # hidden: not focusable
    tab.page.locator("label.md-header__button[for=__drawer]").click()
    assert links.evaluate_all(reachable) == links.count()
    assert links.first.evaluate(focus)


def test_a_focused_control_is_not_hidden_under_the_sticky_header(guarded, site_url):
    """WCAG 2.4.11: a field sitting under the 48 px header when it takes focus
    (Shift+Tab upwards at 640 x 400) scrolls into view below it."""
    tab = guarded(width=640)
    tab.page.set_viewport_size({"width": 640, "height": 400})
    tab.open(f"{site_url}/part1/picture/")
    mount_widget(tab.page)
    field = tab.page.get_by_label("Positions", exact=True)
    field.evaluate("f => window.scrollBy(0, f.getBoundingClientRect().top - 10)")
    assert field.evaluate("f => f.getBoundingClientRect().top") < 48  # covered
    field.evaluate("f => f.focus()")
    header = tab.page.evaluate(
        "() => document.querySelector('.md-header').getBoundingClientRect().bottom"
    )
    assert field.evaluate("f => f.getBoundingClientRect().top") >= header


PIP_COMMANDS = r"""() => [...document.querySelectorAll(
  'div[data-posenc-site] code, code[data-posenc-site]')]
  .map(c => c.textContent.replace(/\\\n/g, ' ').split(/\s+/).join(' ').trim())"""


def test_the_install_commands_name_the_address_the_page_is_read_at(guarded, site_url):
    """index.js: the Install page's pip commands name the site the reader is on
    (here the test's server, not the published site_url), on a first load and
    after instant navigation from the home page; with JavaScript off they are the
    HTML as built, with the published address."""
    wheel = f"{site_url}/{WHEEL_PATH}"
    expected = [f"pip install {wheel}", f'pip install "posenc_docs[figures] @ {wheel}"']
    tab = guarded().open(f"{site_url}/install/")
    tab.page.wait_for_selector("html[data-posenc-widgets=ready]", state="attached")
    assert tab.page.evaluate(PIP_COMMANDS) == expected
    tab.open(f"{site_url}/")
    tab.page.locator(".md-content a[href$='/install/']").first.click()
    tab.page.wait_for_url(f"{site_url}/install/")
    tab.page.wait_for_function(f"({PIP_COMMANDS})()[0]?.includes({site_url!r})")
    assert tab.page.evaluate(PIP_COMMANDS) == expected
    assert tab.errors == []
    plain = guarded(javascript=False).open(f"{site_url}/install/")
    published = plain.page.evaluate(PIP_COMMANDS)
    assert published == [c.replace(f"{site_url}/", "https://posenc-docs.example/")
                         for c in expected], published  # fmt: skip
