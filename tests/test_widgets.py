"""The interactive widgets in real Chromium: their readouts show posenc_docs's numbers
(numerics.js itself is checked on a grid by Node, test_numerics_js.py), bad
input clamps and says so, they work by pointer, touch and keyboard, at 390 px and in
both schemes, without JavaScript (or if a widget fails) the static figures stay, an
update while dragging fits in a frame, and axe-core finds no serious or critical
violation in any of their states (every page: test_pages_phone_light.py)."""

import json
import re
import statistics
from functools import partial
from pathlib import Path

import numpy as np
import pytest
import torch

from posenc_docs import alibi, learned, rope, scaling, sinusoidal

from .conftest import AXE_PATH, AXE_RUN, GuardedPage, guarded_page, mount_widget
from .page_checks import contrast

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
WIDGET_JS = ROOT / "docs" / "javascripts" / "widgets"
EXPLORER = "part1/picture/"
EXTENSION = "part2/07-context-extension/"
EXPLORER_LABELS = ["Dimension d", "Base", "Positions", "Position A", "Position B"]
EXTENSION_LABELS = ["Head dim", "Base", "Training length", "Factor"]
STEPPERS = [f"{p} {sign} 1" for p in "AB" for sign in ("\N{MINUS SIGN}", "+")]


def number(text: str) -> float:
    """A displayed number: true minus, thousands separators."""
    return float(text.replace("\N{MINUS SIGN}", "-").replace(",", ""))


def assert_shown(locator, expected: float, places: int):
    """data-value equals ``expected`` and the text shows it to ``places`` decimals."""
    value = float(locator.get_attribute("data-value"))
    assert value == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert abs(number(locator.inner_text()) - expected) <= 0.5 * 10**-places + 1e-9


def open_widget(guarded, site_url, path, **options):
    tab = guarded(**options)
    tab.page.goto(f"{site_url}/{path}", wait_until="load")
    mount_widget(tab.page)
    return tab


@pytest.fixture(scope="module")
def viewed(browser, site_url):
    """A mounted widget page per path, scheme and width, shared by the tests that
    only read it (no click, key, field or tab change): one load, not one each."""
    tabs = {}

    def view(path, color_scheme="light", width=1280):
        key = path, color_scheme, width
        if key not in tabs:
            tabs[key] = guarded_page(browser, color_scheme=color_scheme, width=width)
            tabs[key].page.goto(f"{site_url}/{path}", wait_until="load")
            mount_widget(tabs[key].page)
        return tabs[key]

    yield view
    for tab in tabs.values():
        tab.page.context.close()


def set_field(page, label, value):
    field = page.get_by_label(label, exact=True)
    field.fill(str(value))
    field.press("Enter")


def set_extension(page, d, base, L0, s):
    """Type head dim and base; the training length slider moves in powers of two."""
    set_field(page, "Head dim", d)
    set_field(page, "Base", base)
    page.get_by_label("Training length", exact=True).fill(str(int(np.log2(L0))))
    page.get_by_label("Factor", exact=True).fill(str(s))
    state = json.loads(page.locator(".posenc-widget").get_attribute("data-state"))
    assert state == {"d": d, "base": base, "L0": L0, "s": s}


def set_explorer(page, d, base, n, a, b):
    for label, value in [("Dimension d", d), ("Base", base), ("Positions", n)]:
        set_field(page, label, value)
    page.get_by_label("Position A", exact=True).fill(str(a))
    page.get_by_label("Position B", exact=True).fill(str(b))
    state = json.loads(page.locator(".posenc-widget").get_attribute("data-state"))
    assert state == {"d": d, "base": base, "n": n, "a": a, "b": b}


def test_a_field_applies_what_was_typed_on_enter_not_keystroke_by_keystroke(
    guarded, site_url
):
    """Typing 1000 into Positions must not clamp "1" to 2 on the way and move
    Position B (70) with it."""
    page = open_widget(guarded, site_url, EXPLORER).page
    field = page.get_by_label("Positions", exact=True)
    field.select_text()
    field.press_sequentially("1000")
    state = json.loads(page.locator(".posenc-widget").get_attribute("data-state"))
    assert state["n"] != 1000 and state["b"] == 70  # nothing applied yet
    field.press("Enter")
    state = json.loads(page.locator(".posenc-widget").get_attribute("data-state"))
    assert (state["n"], state["a"], state["b"]) == (1000, 20, 70)


def test_plain_keys_in_a_widget_do_not_reach_materials_shortcuts(guarded, site_url):
    """Material's "n" (next page) and "s" (search) fire from a focused tab unless
    the widget keeps one-key presses to itself; readouts are not live regions."""
    page = open_widget(guarded, site_url, EXPLORER).page
    url = page.url
    tab = page.get_by_role("tab", name="RoPE")
    tab.focus()
    for key in ("n", "p", "s", "f", "/"):
        page.keyboard.press(key)
    assert page.url == url and tab.evaluate("t => t === document.activeElement")
    live = page.evaluate(
        "() => [...document.querySelectorAll('.pw output')].filter(o =>"
        " o.getAttribute('aria-live') !== 'off' && o.getAttribute('aria-hidden')"
        " !== 'true').map(o => o.outerHTML)"
    )
    assert live == []  # each slider step used to announce three readouts


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_marker_letters_are_legible_on_their_marker(viewed, scheme):
    """The A and B on the heatmap markers: bold 12 px text, so WCAG's 4.5:1."""
    page = viewed(EXPLORER, color_scheme=scheme).page
    colours = page.evaluate(
        "async () => (await import(new URL('/javascripts/widgets/ui.js',"
        " location.href))).themeColours(document.body)"
    )
    assert colours["dark"] == (scheme == "dark")
    for marker in ("a", "b"):
        on = colours["on" + marker.upper()]
        assert contrast(on, colours[marker]) >= 4.5, (scheme, marker, on)


def test_widget_javascript_ships_at_most_40_kb(site_dir):
    """What a reader downloads: the minified copies in the built site."""
    shipped = site_dir / "javascripts" / "widgets"
    sizes = {p.name: p.stat().st_size for p in shipped.glob("*.js")}
    assert sizes.keys() == {p.name for p in WIDGET_JS.glob("*.js")}
    assert sum(sizes.values()) <= 40 * 1024, sizes


def test_widgets_ship_without_axe_or_outside_code(site_dir):
    assert not list(site_dir.rglob("axe*.js")), "axe-core is for tests only"
    for path in (site_dir / "javascripts" / "widgets").glob("*.js"):
        urls = re.findall(r"https?://[^\s\"'`]+", path.read_text())
        assert set(urls) <= {"http://www.w3.org/2000/svg"}, (path.name, urls)


@pytest.mark.parametrize(
    ("path", "labels"),
    [
        (EXPLORER, [*EXPLORER_LABELS, *STEPPERS, "dot product"]),
        (EXTENSION, EXTENSION_LABELS),
    ],
)
def test_every_control_has_one_accessible_label(viewed, path, labels):
    page = viewed(path).page
    controls = page.locator(".pw")  # the widget's own caption names the figure
    for label in labels:  # substring match: no other name may contain the label
        assert controls.get_by_label(label).count() == 1, label
    unlabelled = page.evaluate(
        "() => [...document.querySelectorAll('.pw input, .pw button, .pw select')]"
        ".filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')"
        " && !e.textContent.trim()).map(e => e.outerHTML)"
    )
    assert unlabelled == []


# numerics.js is compared with the package on a grid by Node (test_numerics_js.py);
# here two settings check that fields reach the readouts and tables: a fractional
# base with adjacent positions, and the widest range with B before A.
SETTINGS = [  # d, base, positions, A, B
    (64, 100.5, 300, 150, 151),
    (12, 1000000, 1024, 1023, 0),
]


def test_explorer_numbers_equal_the_package(guarded, site_url, subtests):
    tab = open_widget(guarded, site_url, EXPLORER)
    page = tab.page
    page.get_by_text("Every dimension as a table").click()
    for d, base, n, a, b in SETTINGS:
        with subtests.test(d=d, base=base, n=n, a=a, b=b):
            set_explorer(page, d, base, n, a, b)
            check_sinusoidal_readouts(page, d, base, a, b)
    assert tab.blocked == [] and tab.errors == []


def check_sinusoidal_readouts(page, d, base, a, b):
    pe_a, pe_b = sinusoidal.encode(a, d, base), sinusoidal.encode(b, d, base)
    assert_shown(page.get_by_label("dot product"), pe_a @ pe_b, 4)
    assert_shown(
        page.locator('[data-readout="offset-similarity"]'),
        sinusoidal.offset_similarity(b - a, d, base),
        4,
    )
    # the table follows 200 ms after the last change
    wanted = {"a": str(a), "b": str(b), "d": str(d), "base": str(base)}
    page.wait_for_function(
        "w => { const c = document.querySelector('.pw-table caption').dataset;"
        " return Object.keys(w).every(k => c[k] === w[k]); }",
        arg=wanted,
    )
    shown = page.evaluate(
        "() => [...document.querySelectorAll('tr[data-dim]')].map(r =>"
        " [...r.cells].slice(3).map(c => [+c.dataset.value, c.textContent]))"
    )
    assert len(shown) == d
    values = np.array([[v for v, _ in row] for row in shown])
    texts = np.array([[number(t) for _, t in row] for row in shown])
    expected = np.stack([pe_a, pe_b, pe_a * pe_b], axis=1)
    np.testing.assert_allclose(values, expected, rtol=1e-9, atol=1e-9)
    assert np.abs(texts - expected).max() <= 0.5e-4 + 1e-9


def test_rope_score_depends_only_on_the_offset(guarded, site_url, subtests):
    tab = open_widget(guarded, site_url, EXPLORER)
    page = tab.page
    page.get_by_role("tab", name="RoPE").click()
    panel = page.locator("[role=tabpanel]:visible")
    for d, base, n, a, b in SETTINGS:
        with subtests.test(d=d, base=base, n=n, a=a, b=b):
            set_explorer(page, d, base, n, a, b)
            q = np.array(json.loads(panel.get_attribute("data-q")))
            k = np.array(json.loads(panel.get_attribute("data-k")))

            def score(m, n_key, q=q, k=k, base=base):
                rotated_q = rope.apply_rope(q[None], [m], base=base)[0]
                return rotated_q @ rope.apply_rope(k[None], [n_key], base=base)[0]

            assert len(q) == d
            assert_shown(page.locator('[data-readout="rope-score"]'), score(b, a), 4)
            shifted = page.locator('[data-readout="rope-score-shifted"]')
            assert_shown(shifted, score(b + 1000, a + 1000), 4)
            assert score(b, a) == pytest.approx(score(b + 1000, a + 1000), abs=1e-9)
    assert tab.errors == []


def test_alibi_slopes_equal_the_package(guarded, site_url, subtests):
    tab = open_widget(guarded, site_url, EXPLORER)
    page = tab.page
    page.get_by_label("Position A", exact=True).fill("40")
    page.get_by_label("Position B", exact=True).fill("15")
    page.get_by_role("tab", name="ALiBi").click()
    for heads in [3, 8]:  # not and a power of two
        with subtests.test(heads=heads):
            check_alibi(page, heads)
    assert tab.errors == []


def check_alibi(page, heads):
    set_field(page, "Heads", heads)
    shown = page.evaluate(
        "() => [...document.querySelectorAll('tr[data-head]')].map(r =>"
        " [+r.cells[1].dataset.slope, r.cells[1].textContent,"
        " +r.cells[2].dataset.bias])"
    )
    slopes = alibi.alibi_slopes(heads)
    assert len(shown) == heads
    np.testing.assert_allclose([s for s, _, _ in shown], slopes, rtol=1e-12)
    np.testing.assert_allclose([number(t) for _, t, _ in shown], slopes, rtol=1e-5)
    bias = alibi.alibi_bias(heads, 1, 26)[:, 0, 0]  # query at 25, key at 0: distance 25
    np.testing.assert_allclose([b for _, _, b in shown], bias, rtol=1e-12)
    expected_rule = "is a power of two" if heads & (heads - 1) == 0 else "not a power"
    assert expected_rule in page.locator("[role=tabpanel]:visible").inner_text()


def test_learned_table_ends_at_max_len(guarded, site_url):
    tab = open_widget(guarded, site_url, EXPLORER)
    page = tab.page
    set_explorer(page, 32, 10000, 300, 100, 250)
    page.get_by_role("tab", name="Learned").click()
    set_field(page, "Rows in the table (max_len)", 200)
    row_a = page.locator('[data-readout="learned-a"]')
    row_b = page.locator('[data-readout="learned-b"]')
    assert row_a.get_attribute("data-row") == "yes"
    assert row_b.get_attribute("data-row") == "no"
    row_b_text = row_b.inner_text().replace("\u00a0", " ")  # "= 250" not alone
    assert "No row for position B = 250" in row_b_text
    assert "max_len = 200" in row_b_text
    table = learned.LearnedPositionalEmbedding(200, 32)
    x = np.zeros((1, 32), dtype=np.float32)
    table(torch.from_numpy(x), positions=torch.tensor([100]))  # a row exists
    with pytest.raises(IndexError, match="no row for position 250"):
        table(torch.from_numpy(x), positions=torch.tensor([250]))
    count = page.locator('[data-readout="parameters"]')
    assert float(count.get_attribute("data-value")) == learned.parameter_count(200, 32)
    assert tab.errors == []


def test_bad_input_clamps_and_says_so(guarded, site_url):
    tab = open_widget(guarded, site_url, EXPLORER)
    page = tab.page
    d_field = page.get_by_label("Dimension d", exact=True)
    set_field(page, "Dimension d", 7)
    assert d_field.input_value() == "8"
    assert page.get_by_text("d must be even: 7 rounded to 8.").is_visible()
    set_field(page, "Dimension d", 33)
    assert d_field.input_value() == "34"
    assert page.get_by_text("33 rounded to 34").is_visible()
    set_field(page, "Dimension d", 2000)
    assert d_field.input_value() == "512"
    assert page.get_by_text("clamped to 512").is_visible()

    dot = page.get_by_label("dot product")
    before = dot.get_attribute("data-value")
    for refused in ["1", "0.5", "-3"]:
        set_field(page, "Base", refused)
        message = page.get_by_text(f"{refused} refused, still using 10000")
        assert message.is_visible()
        base_field = page.get_by_label("Base", exact=True)
        assert base_field.get_attribute("aria-invalid") == "true"
        assert dot.get_attribute("data-value") == before

    set_field(page, "Positions", 5000)
    assert page.get_by_text("clamped to 1,024").is_visible()
    page.get_by_label("Position B", exact=True).fill("900")
    set_field(page, "Positions", 100)
    assert page.get_by_text("Position B moved from 900 to 99").is_visible()
    assert page.get_by_label("Position B", exact=True).input_value() == "99"
    assert tab.errors == []


def test_positions_by_dragging_and_by_keyboard(guarded, site_url):
    tab = open_widget(guarded, site_url, EXPLORER)
    page = tab.page
    set_explorer(page, 64, 10000, 200, 10, 150)
    overlay = page.locator(".pw-heat-overlay:visible")
    overlay.scroll_into_view_if_needed()
    box = overlay.bounding_box()  # rows are positions, as in the static figure
    y_at = lambda p: box["y"] + (p + 0.5) / 200 * box["height"]  # noqa: E731
    x = box["x"] + box["width"] / 2
    page.mouse.move(x, y_at(30))  # nearer to A (10) than to B (150)
    page.mouse.down()
    page.mouse.move(x, y_at(60), steps=5)
    page.mouse.up()
    slider_a = page.get_by_label("Position A", exact=True)
    slider_b = page.get_by_label("Position B", exact=True)
    assert slider_a.input_value() == "60" and slider_b.input_value() == "150"
    page.mouse.click(x, y_at(140))  # nearer to B
    assert slider_b.input_value() == "140"
    page.get_by_text("Every dimension as a table").click()
    slider_a.focus()
    page.keyboard.press("ArrowRight")
    assert slider_a.input_value() == "61"
    # the table follows once the positions stop changing
    page.wait_for_function(
        "document.querySelector('.pw-table caption').dataset.a === '61'"
    )
    page.keyboard.press("End")
    assert slider_a.input_value() == "199"
    expected = sinusoidal.encode(199, 64) @ sinusoidal.encode(140, 64)
    assert_shown(page.get_by_label("dot product"), expected, 4)
    tablist = page.get_by_role("tab", name="Sinusoidal")
    tablist.focus()
    page.keyboard.press("ArrowRight")
    assert page.get_by_role("tab", name="RoPE").get_attribute("aria-selected") == "true"
    assert page.locator("[role=tabpanel]:visible canvas").count() == 1
    assert tab.errors == []


def test_a_position_steps_by_one_with_its_buttons_and_stops_at_the_ends(
    guarded, site_url
):
    """At 1,024 positions a phone's slider moves 3-4 a pixel: each position has
    buttons one down and one up, which move its slider, the state and the
    dot product, and stay within 0 .. n - 1."""
    tab = open_widget(guarded, site_url, EXPLORER, width=390)
    page = tab.page
    set_explorer(page, 64, 10000, 1024, 0, 1022)
    slider_a = page.get_by_label("Position A", exact=True)
    slider_b = page.get_by_label("Position B", exact=True)
    page.get_by_role("button", name="A \N{MINUS SIGN} 1").click()  # at 0: stays
    for _ in range(3):
        page.get_by_role("button", name="A + 1").click()
    for _ in range(2):  # from 1022 to 1023, the last, and no further
        page.get_by_role("button", name="B + 1").click()
    page.get_by_role("button", name="B \N{MINUS SIGN} 1").click()
    assert (slider_a.input_value(), slider_b.input_value()) == ("3", "1022")
    state = json.loads(page.locator(".posenc-widget").get_attribute("data-state"))
    assert (state["a"], state["b"]) == (3, 1022)
    expected = sinusoidal.encode(3, 64) @ sinusoidal.encode(1022, 64)
    assert_shown(page.get_by_label("dot product"), expected, 4)
    set_field(page, "Positions", 100)  # B is moved to the last, and says so
    note = page.get_by_text("Position B moved from 1022 to 99")
    page.get_by_role("button", name="B + 1").click()  # moves nothing: note stays
    assert note.is_visible() and slider_b.input_value() == "99"
    assert tab.errors == []


def touch(page, x, y, dy=0.0, moves=0):
    """A finger down at (x, y), ``moves`` steps up to ``dy`` CSS px down, then up,
    through the DevTools protocol (real touch input: the page may scroll). With
    no moves, a tap."""
    cdp = page.context.new_cdp_session(page)
    try:
        send = partial(cdp.send, "Input.dispatchTouchEvent")
        send({"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        for k in range(1, moves + 1):
            point = {"x": x, "y": y + dy * k / moves}
            send({"type": "touchMove", "touchPoints": [point]})
            page.wait_for_timeout(16)  # one a frame, as a finger
        send({"type": "touchEnd", "touchPoints": []})
    finally:
        cdp.detach()


@pytest.mark.parametrize(
    ("name", "start", "tap", "moved"),
    [("Sinusoidal", 0.3, 40, "a"), ("Learned", 0.9, 100, "b")],
)
def test_a_scroll_swipe_on_a_heatmap_moves_neither_a_nor_b(
    browser, site_url, name, start, tap, moved
):
    """touch-action: pan-y gives a vertical swipe on a heatmap to the page: it
    scrolled and, as the finger picked a row on touching, moved A or B (A = 20,
    B = 70 of 128 positions; the swipe starts nearer A on the sinusoidal heatmap,
    whose rows are positions, nearer B on the learned one, whose columns are). A
    tap still moves the nearer of A and B to the tapped position."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    )
    try:
        tab = GuardedPage(context)
        page = tab.page
        page.goto(f"{site_url}/{EXPLORER}", wait_until="load")
        mount_widget(page)
        page.get_by_role("tab", name=name).click()
        overlay = page.locator(".pw-heat-overlay:visible")
        overlay.evaluate("e => e.scrollIntoView({ block: 'center' })")
        widget = page.locator(".posenc-widget")
        before = json.loads(widget.get_attribute("data-state"))
        assert (before["n"], before["a"], before["b"]) == (128, 20, 70)
        box, scrolled = overlay.bounding_box(), page.evaluate("scrollY")
        vertical = name == "Sinusoidal"
        at = [box["x"] + box["width"] * (0.5 if vertical else start),
              box["y"] + box["height"] * (start if vertical else 0.5)]  # fmt: skip
        touch(page, *at, dy=-150, moves=10)  # up the screen: the page scrolls down
        page.wait_for_function(f"scrollY > {scrolled + 50}")  # it was a scroll
        assert json.loads(widget.get_attribute("data-state")) == before

        # the page may still be flinging: wait until scrollY holds for 100 ms
        while scrolled != (scrolled := page.evaluate("scrollY")):
            page.wait_for_timeout(100)
        overlay.evaluate("e => e.scrollIntoView({ block: 'center' })")
        box = overlay.bounding_box()
        along = (tap + 0.5) / 128  # the middle of position `tap`
        if vertical:
            touch(page, box["x"] + box["width"] / 2, box["y"] + along * box["height"])
        else:
            touch(page, box["x"] + along * box["width"], box["y"] + box["height"] / 2)
        page.wait_for_function(
            "([key, old]) => JSON.parse(document.querySelector('.posenc-widget')"
            ".dataset.state)[key] !== old",
            arg=[moved, before[moved]],
        )
        after = json.loads(widget.get_attribute("data-state"))
        assert abs(after[moved] - tap) <= 1  # within a row: a touch point is rounded
        other = "b" if moved == "a" else "a"
        assert after[other] == before[other]
        assert tab.blocked == [] and tab.errors == []
    finally:
        context.close()


EXTENSION_SETTINGS = [  # head dim, base, training length, factor (grid: Node)
    (96, 1000000, 32768, 3),
    (8, 10000, 16, 1),
    (16, 10000, 65536, 2),  # YaRN's upper bound 9 is past the last pair, 7
]


def read_pairs(page):
    return page.evaluate(
        "() => [...document.querySelectorAll('tr[data-pair]')].map(r => Object"
        ".fromEntries([...r.querySelectorAll('td[data-method]')].map(c =>"
        " [c.dataset.method, [+c.dataset.value, c.textContent]])))"
    )


def test_context_extension_equals_the_package(guarded, site_url, subtests):
    tab = open_widget(guarded, site_url, EXTENSION)
    for d, base, L0, s in EXTENSION_SETTINGS:
        with subtests.test(d=d, base=base, L0=L0, s=s):
            check_extension(tab.page, d, base, L0, s)
    assert tab.blocked == [] and tab.errors == []


def check_extension(page, d, base, L0, s):
    set_extension(page, d, base, L0, s)
    theta = rope.inv_freq(d, base)
    methods = {
        "linear": scaling.linear(d, base, factor=s),
        "ntk": scaling.ntk(d, base, factor=s),
        "yarn": scaling.yarn(d, base, factor=s, original_max_position_embeddings=L0),
        "llama3": scaling.llama3(
            d,
            base,
            factor=s,
            low_freq_factor=1,
            high_freq_factor=4,
            original_max_position_embeddings=L0,
        ),
    }
    rows = read_pairs(page)
    assert len(rows) == d // 2
    for key, (inv_freq, _) in methods.items():
        expected = scaling.scale_per_pair(inv_freq, theta)
        shown = np.array([row[key][0] for row in rows])
        np.testing.assert_allclose(shown, expected, rtol=1e-12, err_msg=key)
        texts = np.array([number(row[key][1]) for row in rows])
        assert np.abs(texts - expected).max() <= 0.5e-4 + 1e-9, key
    low, high = scaling.yarn_ramp_bounds(d, base, original_max_position_embeddings=L0)
    assert_shown(page.locator('[data-readout="yarnLow"]'), low, 0)
    assert_shown(page.locator('[data-readout="yarnHigh"]'), high, 0)
    past = page.locator('[data-note="yarn-past"]').inner_text()  # only when it is
    past = past.replace("\N{NO-BREAK SPACE}", " ")
    last = d // 2 - 1
    assert past == (f" (past the last pair, d/2 − 1 = {last})" if high > last else "")
    assert_shown(page.locator('[data-readout="yarnAttention"]'), methods["yarn"][1], 4)
    ntk_base = scaling.ntk_base(d, base, s)
    assert_shown(page.locator('[data-readout="ntkBase"]'), ntk_base, 2)
    for key, band in (("bandFast", L0 / 4), ("bandSlow", L0)):  # Llama 3.1's bounds
        readout = page.locator(f'[data-readout="{key}"]')
        assert_shown(readout, band, 0 if float(band).is_integer() else 1)
        assert readout.inner_text().endswith(".0") is False  # 2,048, not 2,048.0
    beyond = int((scaling.wavelengths(theta) > L0).sum())
    shown_beyond = page.locator('[data-readout="beyond"]').get_attribute("data-value")
    assert float(shown_beyond) == beyond


def test_context_extension_says_when_yarn_has_no_ramp(guarded, site_url):
    page = open_widget(guarded, site_url, EXTENSION).page
    set_extension(page, 64, 2, 2**17, 4)
    with pytest.raises(ValueError, match="non-empty ramp"):
        scaling.yarn(64, 2, factor=4, original_max_position_embeddings=2**17)
    assert page.get_by_text("YaRN has no ramp for these settings").is_visible()
    assert all("yarn" in row and np.isnan(row["yarn"][0]) for row in read_pairs(page))


JS_NUMBER = re.compile(r"Infinity|NaN|\de[+-]?\d")  # 4.088994243248622e+300


def test_context_extension_leaves_ntk_out_when_its_base_overflows(guarded, site_url):
    """At base 1e308 the NTK-aware base b s^(d/(d-2)) is beyond float64 (the package
    refuses it): no "Infinity" readout, table or curve, but a dash, a note and no
    legend entry, as for YaRN without a ramp. Huge and tiny numbers elsewhere
    (wavelengths to 1e303) are written as powers of ten, not as JS exponents."""
    tab = open_widget(guarded, site_url, EXTENSION)
    page = tab.page
    page.get_by_text("Every pair as a table").click()
    set_field(page, "Base", "1e308")
    widget = page.locator(".posenc-widget")
    state = json.loads(widget.get_attribute("data-state"))
    assert state["base"] == 1e308
    with pytest.raises(ValueError, match="NTK base .* past float64's range"):
        scaling.ntk(state["d"], 1e308, factor=state["s"])
    text = widget.inner_text()
    assert not JS_NUMBER.findall(text), JS_NUMBER.findall(text)
    assert "^" not in text  # a power is a superscript or words, not code notation
    note = page.get_by_text("NTK-aware scaling is left out")
    assert note.is_visible() and note.get_attribute("aria-live") == "polite"
    assert page.locator('[data-readout="ntkBase"]').inner_text() == "\u2014"
    legend = widget.locator(".pw-legend li").all_inner_texts()
    assert legend == ["PI (linear)", "YaRN", "Llama 3.1"]
    rows = read_pairs(page)
    assert rows and all(np.isnan(r["ntk"][0]) and r["ntk"][1] == "\u2014" for r in rows)
    formatted = page.evaluate(
        "async () => { const ui = await import(new URL("
        "'/javascripts/widgets/ui.js', location.href));"
        " return [ui.fixed(4.088994243248622e300, 2), ui.fixed(-2.5e21, 1),"
        " ui.fixed(123456.789, 2), ui.sig(4.2331e-301, 4), ui.sig(0.01004, 4)]; }"
    )
    assert formatted == [
        "4.09 \u00d7 10\u00b3\u2070\u2070",
        "\u22122.5 \u00d7 10\u00b2\u00b9",
        "123,456.79",
        "4.233 \u00d7 10\u207b\u00b3\u2070\u00b9",
        "0.01004",
    ]
    set_field(page, "Base", "10000")  # a finite NTK base: NTK is back
    assert page.get_by_text("NTK-aware scaling has no base").count() == 0
    assert "NTK-aware" in widget.locator(".pw-legend").inner_text()
    assert tab.errors == []


def test_wavelength_chart_labels_one_line_at_factor_1(guarded, site_url):
    """At s = 1, L0 and s L0 are one line: one label, not two drawn on top of each
    other. The chart records the labels of its lines (data-lines)."""
    tab = open_widget(guarded, site_url, EXTENSION)
    page = tab.page
    chart = page.locator(".pw canvas").first  # wavelength of each pair
    assert chart.get_attribute("data-axis-x") == "pair index i"
    one, two = ["L\u2080 = s\u00b7L\u2080"], ["L\u2080", "s\u00b7L\u2080"]
    for factor, labels in [(1, one), (2, two), (64, two)]:
        page.get_by_label("Factor", exact=True).fill(str(factor))
        lines = chart.get_attribute("data-lines")
        assert lines is not None and json.loads(lines) == labels, (factor, lines)
    assert tab.errors == []


@pytest.mark.parametrize(
    ("base", "log2_length", "factor"), [(500000, 13, 2), (1e6, 15, 2), (1e4, 12, 64)]
)
def test_wavelength_chart_line_labels_clear_both_lines(
    guarded, site_url, base, log2_length, factor
):
    """Llama 3 8B and Qwen2.5 at factor 2: the s L0 line is a few pixels above L0's,
    and struck through L0's label. No line label may cross either line."""
    page = open_widget(guarded, site_url, EXTENSION, width=390).page
    set_field(page, "Base", base)
    page.get_by_label("Training length", exact=True).fill(str(log2_length))
    page.get_by_label("Factor", exact=True).fill(str(factor))
    chart = page.locator(".pw canvas").first
    boxes = json.loads(chart.get_attribute("data-line-labels"))
    ys = json.loads(chart.get_attribute("data-line-ys"))
    for label, top, bottom in boxes:
        assert not any(top < y < bottom for y in ys), (label, top, bottom, ys)
    (_, top_a, bottom_a), (_, top_b, bottom_b) = boxes
    assert bottom_a <= top_b or bottom_b <= top_a, boxes  # the labels do not overlap


def type_into(page, label, text):
    """Type ``text`` key by key, as a reader does; fill() refuses non-numbers."""
    field = page.get_by_label(label, exact=True)
    field.fill("")
    field.press_sequentially(text)
    field.press("Enter")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_refused_field_says_what_it_held_and_shows_it(guarded, site_url, scheme):
    """A number input reads "" for text it cannot parse: the note must not call
    "1-2" empty, a whole-number field gives its range, and the refused border is
    at least 3:1 against the page (Material's del colour was 1.2:1)."""
    page = open_widget(guarded, site_url, EXPLORER, color_scheme=scheme).page
    type_into(page, "Base", "1-2")
    assert page.get_by_text(
        "text that is not a number refused, still using"
    ).is_visible()
    type_into(page, "Dimension d", "")
    note = "d must be an even whole number from 8 to 512; an empty field refused"
    assert page.get_by_text(f"{note}, still using 64.").is_visible()  # the page's d
    type_into(page, "Positions", "2-3")  # every refusal says what the widget shows
    note = "Positions must be a whole number from 2 to 1,024; text that is not a number"
    assert page.get_by_text(f"{note} refused, still using 128.").is_visible()
    border, background = page.evaluate(
        """() => [getComputedStyle(document.querySelector('.pw-refused input'))
                    .borderTopColor,
                  getComputedStyle(document.body).backgroundColor]"""
    )
    assert contrast(border, background) >= 3, (border, background)


def test_a_refusal_names_the_value_as_the_field_showed_it(guarded, site_url):
    """Rounded to 6 digits, a refusal after base 1234567.89 said "still using
    1234570" (a review): the text of the last accepted value is quoted."""
    page = open_widget(guarded, site_url, EXPLORER).page
    set_field(page, "Base", "1234567.89")
    type_into(page, "Base", "")
    note = "an empty field refused, still using 1234567.89."
    assert page.get_by_text(note).is_visible()


def test_a_refused_data_attribute_mounts_with_the_default(guarded, site_url):
    """A page whose widget sets a base the widget refuses: the widget mounts with
    its default base (the refusal's note once read the widget's state before it
    existed: ReferenceError, no widget)."""
    tab = guarded()

    def with_bad_base(route):
        widget = 'data-widget="encoding-explorer"'
        body = route.fetch().text().replace(widget, f'data-base="0" {widget}')
        route.fulfill(body=body, content_type="text/html")

    tab.page.route(f"{site_url}/{EXPLORER}", with_bad_base)
    tab.page.goto(f"{site_url}/{EXPLORER}", wait_until="load")
    mount_widget(tab.page)
    state = json.loads(tab.page.locator(".posenc-widget").get_attribute("data-state"))
    assert state["base"] == 10000 and tab.errors == []


def test_a_value_is_rewritten_only_when_it_changes(guarded, site_url):
    """A base typed as 1e300 is that number: the field kept 1e+300 (String()'s
    spelling), as if the widget had changed it; a clamped value is rewritten."""
    page = open_widget(guarded, site_url, EXPLORER).page
    for typed in ["1e300", "2.5e4"]:
        set_field(page, "Base", typed)
        assert page.get_by_label("Base", exact=True).input_value() == typed
        state = json.loads(page.locator(".posenc-widget").get_attribute("data-state"))
        assert state["base"] == float(typed)
    set_field(page, "Positions", "2e3")  # clamped: the field shows what is used
    assert page.get_by_label("Positions", exact=True).input_value() == "1024"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_selected_tab_is_marked_at_3_to_1(viewed, scheme):
    page = viewed(EXPLORER, color_scheme=scheme).page
    line, background = page.evaluate(
        """() => [getComputedStyle(document.querySelector(
                    '.pw-tabs [aria-selected=true]')).borderBottomColor,
                  getComputedStyle(document.body).backgroundColor]"""
    )
    assert contrast(line, background) >= 3, (line, background)


def test_a_negative_rope_offset_says_it_is_off_the_chart(guarded, site_url):
    """The RoPE chart's offsets start at 0: with B < A the readout's offset has
    no dot on the chart, and says so."""
    page = open_widget(guarded, site_url, EXPLORER).page
    page.get_by_role("tab", name="RoPE").click()
    page.get_by_label("Position A", exact=True).fill("100")
    page.get_by_label("Position B", exact=True).fill("10")
    where = page.locator("[data-readout=rope-score]").locator("xpath=..")
    assert "= −90, left of the chart)" in where.inner_text().replace("\u00a0", " ")


# The widget's height after a slider is moved to each value as a reader moves it:
# the value set, then an input event.
HEIGHTS_AS_IT_MOVES = """(slider, values) => {
  const widget = slider.closest('.posenc-widget');
  return values.map(value => {
    slider.value = String(value);
    slider.dispatchEvent(new Event('input', { bubbles: true }));
    return widget.getBoundingClientRect().height;
  });
}"""


@pytest.mark.parametrize(
    ("tab_name", "width"),
    [
        ("RoPE", 320),
        ("RoPE", 390),
        ("RoPE", 800),
        ("RoPE", 900),
        ("Learned", 390),
        ("Learned", 1024),
    ],  # RoPE's two scores sat side by side at 800-900 px when short
)
def test_moving_a_position_does_not_move_the_page_below(
    guarded, site_url, tab_name, width
):
    """The readouts under the charts wrap differently as their numbers change:
    they keep room for their longer text, so the widget's height stays put."""
    page = open_widget(guarded, site_url, EXPLORER, width=width).page
    page.get_by_role("tab", name=tab_name).click()
    step = 3 if width < 360 else 7  # more wraps on a narrow phone
    slider, positions = page.get_by_label("Position A", exact=True), range(0, 128, step)
    heights = slider.evaluate(HEIGHTS_AS_IT_MOVES, list(positions))
    state = json.loads(page.locator(".posenc-widget").get_attribute("data-state"))
    assert state["a"] == positions[-1]  # the events moved A
    assert len(set(heights)) == 1, sorted(set(heights))


def test_edge_counts_are_worded_for_one(guarded, site_url):
    page = open_widget(guarded, site_url, EXPLORER).page
    page.get_by_role("tab", name="ALiBi").click()
    set_field(page, "Heads", 3)
    assert page.get_by_text("then one more, 2^(−4/2), steeper than both.").is_visible()
    page.get_by_role("tab", name="Learned").click()
    set_field(page, "Rows in the table (max_len)", 1)
    words = "max_len\u00a0=\u00a01 (one row, position 0)."
    assert page.get_by_text(words).first.is_visible()


def test_context_extension_bad_input(guarded, site_url):
    tab = open_widget(guarded, site_url, EXTENSION)
    page = tab.page
    set_field(page, "Head dim", 63)
    assert page.get_by_label("Head dim", exact=True).input_value() == "64"
    assert page.get_by_text("63 rounded to 64").is_visible()
    widget = page.locator(".posenc-widget")
    base = json.loads(widget.get_attribute("data-state"))["base"]
    set_field(page, "Base", "1")
    assert page.get_by_text("1 refused").is_visible()
    assert json.loads(widget.get_attribute("data-state"))["base"] == base
    assert tab.errors == []


@pytest.mark.parametrize(("path", "static"), [(EXPLORER, 6), (EXTENSION, 1)])
def test_without_javascript_the_static_figures_show(browser, site_url, path, static):
    """Each static figure is shown and drawn (loaded, not just in the page)."""
    context = browser.new_context(java_script_enabled=False)
    try:
        tab = GuardedPage(context, javascript=False).open(f"{site_url}/{path}")
        widget = tab.page.locator(".posenc-widget")
        assert widget.count() == 1
        figures = widget.locator("picture.posenc-figure img")
        assert figures.count() == static
        for i in range(static):
            figures.nth(i).scroll_into_view_if_needed()  # lazy images load on screen
            assert figures.nth(i).is_visible()
            drawn = "img => img.decode().then(() => img.naturalWidth)"
            assert figures.nth(i).evaluate(drawn) > 100
        assert widget.locator(".pw").count() == 0
        assert tab.blocked == []
    finally:
        context.close()


@pytest.mark.parametrize("path", [EXPLORER, EXTENSION])
def test_with_javascript_the_widget_replaces_them(viewed, path):
    page = viewed(path).page
    widget = page.locator(".posenc-widget")
    assert widget.locator(".pw").count() == 1
    assert widget.locator('img[src*="figures/"]:visible').count() == 0


VISIBLE_FIGURE_NUMBERS = """() => [...document.querySelectorAll(
  "figure.posenc-fig figcaption strong, .posenc-widget__caption strong")]
  .filter((label) => label.checkVisibility()).map((label) => label.textContent)"""
LINK_TARGETS = """() => [...document.querySelectorAll('article a[href*="#fig-"]')]
  .filter((link) => link.pathname === location.pathname)  // Material makes it absolute
  .map((link) => document.getElementById(link.hash.slice(1)))
  .map((target) => target && target.checkVisibility())"""


def shown_numbers(labels: list[str]) -> list[int]:
    """[1, 2, 3] from "Figure 1.", "Figures 2\u20133 (interactive).": what is shown."""
    numbers = []
    for label in labels:
        first, last = re.fullmatch(
            r"Figures? (\d+)(?:\u2013(\d+))?(?: \(interactive\))?\.", label
        ).groups()
        numbers += range(int(first), int(last or first) + 1)
    return numbers


def test_shown_numbers_reads_ranges():
    labels = ["Figure 1.", "Figures 2\u20134 (interactive).", "Figure 5."]
    assert shown_numbers(labels) == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("javascript", [True, False])
@pytest.mark.parametrize("path", [EXPLORER, EXTENSION])
def test_figure_numbers_on_screen_run_1_to_n(browser, site_url, path, javascript):
    context = browser.new_context(java_script_enabled=javascript)
    try:
        page = context.new_page()
        page.goto(f"{site_url}/{path}", wait_until="load")
        if javascript:
            mount_widget(page)
        numbers = shown_numbers(page.evaluate(VISIBLE_FIGURE_NUMBERS))
        assert numbers == list(range(1, len(numbers) + 1)) and numbers
        targets = page.evaluate(LINK_TARGETS)  # "Figure N" links land on it
        assert all(targets) and (targets or path == EXPLORER)  # none links there
        caption = page.locator(".posenc-widget__caption")
        assert caption.count() == (1 if javascript else 0)
        if javascript:  # announced as a figure named by its number; the rest of
            # the caption is read once, as text, not a second time as the name
            name = caption.locator("strong").inner_text()
            widget = page.get_by_role("figure", name=name, exact=True)
            assert widget.locator(".pw").count() == 1
    finally:
        context.close()


THROWING_WIDGET = (
    "export const CAPTION = 'x';"
    " export function mount() { throw new Error('a mount that throws'); }"
)
FAILED = "widget failed, showing its static figures"  # index.js's console.error


@pytest.mark.parametrize("failure", ["load", "mount"])
@pytest.mark.parametrize("path", [EXPLORER, EXTENSION])
def test_a_widget_that_fails_shows_its_static_figures(guarded, site_url, path, failure):
    """A widget whose module does not load, or whose mount() throws, left its static
    figures hidden and a blank gap where its room was kept: they show again, with
    their numbers and ids (links land on them), the page still says ready, and the
    error is logged: the one console error expected, with the failed request's."""
    tab = guarded(width=390)
    page = tab.page
    name = {EXPLORER: "encoding-explorer", EXTENSION: "context-extension"}[path]
    if failure == "load":
        page.route(f"**/widgets/{name}.js", lambda route: route.abort())
    else:
        page.route(
            f"**/widgets/{name}.js",
            lambda route: route.fulfill(
                content_type="text/javascript", body=THROWING_WIDGET
            ),
        )
    page.goto(f"{site_url}/{path}", wait_until="load")
    page.wait_for_selector("html[data-posenc-widgets=ready]", state="attached")
    widget = page.locator(".posenc-widget")
    widget.scroll_into_view_if_needed()  # a mount is tried near the screen
    page.wait_for_function(
        "document.querySelector('.posenc-widget').dataset.mounted !== 'loading'",
        timeout=5000,
    )
    assert widget.get_attribute("data-mounted") == "failed"
    assert widget.evaluate("w => getComputedStyle(w).minHeight") == "0px"
    assert widget.locator(".pw, .posenc-widget__caption").count() == 0
    figures = widget.locator("figure.posenc-fig")
    assert figures.count() >= 1
    for i in range(figures.count()):
        image = figures.nth(i).locator("img")
        image.scroll_into_view_if_needed()  # lazy: loads near the viewport
        image.evaluate("img => img.decode()")
        assert image.evaluate("img => img.naturalWidth") > 100
        assert figures.nth(i).bounding_box()["height"] > 100
    numbers = shown_numbers(page.evaluate(VISIBLE_FIGURE_NUMBERS))
    assert numbers == list(range(1, len(numbers) + 1)) and numbers
    targets = page.evaluate(LINK_TARGETS)  # "Figure N" links land on the figures
    assert all(targets) and (targets or path == EXPLORER)  # none links there
    logged = [e for e in tab.errors if FAILED in e]
    assert len(logged) == 1 and name in logged[0], tab.errors
    requests = [e for e in tab.errors if e not in logged]
    assert all("Failed to load resource" in e for e in requests), requests
    assert len(requests) == (1 if failure == "load" else 0), requests


def test_a_widget_far_down_mounts_near_the_screen_and_links_land_on_it(
    guarded, site_url
):
    """The context-extension widget is far below the first screen at 390 px: at
    load it is not built (no long task before the reader scrolls), yet its caption
    and anchors are there, and a "Figure N" link to it builds it and lands on it."""
    tab = guarded(width=390)
    page = tab.page
    page.goto(f"{site_url}/{EXTENSION}", wait_until="load")
    page.wait_for_selector("html[data-posenc-widgets=ready]", state="attached")
    tab.settle()
    widget = page.locator(".posenc-widget")
    assert widget.get_attribute("data-mounted") == "loading"
    assert widget.locator(".pw").count() == 0 and widget.evaluate(
        "w => w.getBoundingClientRect().top > 2 * innerHeight"
    )
    assert page.locator(".posenc-widget__caption").count() == 1
    targets = page.evaluate(LINK_TARGETS)  # every "Figure N" link on the page
    assert len(targets) >= 2 and all(targets), targets
    anchor = widget.locator(":scope > span[id]").first.get_attribute("id")
    page.locator(f'article a[href$="#{anchor}"]').first.click()
    page.wait_for_selector(".posenc-widget[data-mounted=ready] .pw")
    top = widget.evaluate("w => w.getBoundingClientRect().top")
    assert 0 <= top < page.viewport_size["height"] / 2, top
    assert tab.errors == []


RESERVED_HEIGHT = """(name) => {
  const probe = document.createElement("div");
  probe.className = "posenc-widget";
  probe.dataset.widget = name;  // not mounted: what the page reserves before
  document.querySelector(".md-typeset").append(probe);
  const reserved = parseFloat(getComputedStyle(probe).minHeight) || 0;
  probe.remove();
  return reserved;
}"""


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("path", [EXPLORER, EXTENSION])
def test_room_kept_before_mounting_is_within_10_percent(viewed, path, width):
    page = viewed(path, width=width).page
    widget = page.locator(".posenc-widget")
    mounted = widget.bounding_box()["height"]
    reserved = page.evaluate(RESERVED_HEIGHT, widget.get_attribute("data-widget"))
    assert abs(reserved - mounted) <= 0.1 * mounted, (reserved, mounted)


def test_instant_navigation_mounts_once_per_visit(guarded, site_url):
    tab = guarded().navigate_instantly()
    page = tab.page
    tab.open(f"{site_url}/")
    page.evaluate("window.posencVisit = 1")  # gone if a click reloads the page
    for _ in range(2):
        page.locator(f'a.md-nav__link[href$="{EXPLORER}"]').first.click()
        mount_widget(page, "encoding-explorer")  # not the other page's
        assert page.locator(".pw").count() == 1
        page.locator(f'a.md-nav__link[href$="{EXTENSION}"]').first.click()
        mount_widget(page, "context-extension")
        assert page.locator(".pw").count() == 1
    assert page.evaluate("window.posencVisit") == 1
    assert tab.blocked == [] and tab.errors == []


@pytest.mark.parametrize("path", [EXPLORER, EXTENSION])
def test_canvases_follow_the_colour_scheme(guarded, site_url, path):
    page = open_widget(guarded, site_url, path).page
    snapshot = (
        "() => [...document.querySelectorAll('.pw canvas')].map(c => c.toDataURL())"
    )
    light = page.evaluate(snapshot)
    page.locator("form[data-md-component=palette] label:visible").first.click()
    page.wait_for_function("document.body.dataset.mdColorScheme === 'slate'")
    dark = page.evaluate(snapshot)
    assert any(a != b for a, b in zip(light, dark, strict=True))


@pytest.mark.parametrize("path", [EXPLORER, EXTENSION])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_usable_on_a_390_px_screen(viewed, path, scheme):
    page = viewed(path, width=390, color_scheme=scheme).page
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1
    widths = page.evaluate(
        "() => [...document.querySelectorAll('.pw canvas, .pw input')]"
        ".filter(e => e.offsetParent).map(e => e.getBoundingClientRect().right)"
    )
    assert widths and max(widths) <= 390


# Each read-out value: whether it is one line, with the last operand and "=" of a
# label ending "... operand =" before it, and its text.
VALUES_WITH_THEIR_LABEL = """() => [...document.querySelectorAll('.pw-readout output')]
  .filter(out => out.offsetParent).map(out => {
    const label = out.previousSibling?.firstChild || out.previousSibling;
    const text = label?.textContent || '', range = document.createRange();
    const operand = text.search(/\\S+\\s=$/);  // \\s: a no-break space too
    if (operand >= 0) range.setStart(label, operand);
    else if (/^\\s=$/.test(text) && label.previousSibling) {
      range.setStartBefore(label.previousSibling);  // "b·s<sup>d/(d−2)</sup> ="
    } else range.setStartBefore(out);
    range.setEnd(out, out.childNodes.length);
    const rects = [...range.getClientRects()].filter(r => r.width > 0);
    const oneLine = Math.max(...rects.map(r => r.top))  // a raised <sup> counts too
      < Math.min(...rects.map(r => r.bottom));
    return [oneLine, text.slice(-12) + out.textContent];
  })"""


@pytest.mark.parametrize("path", [EXPLORER, EXTENSION])
def test_a_value_stays_on_the_line_of_its_equals_sign_at_390_px(viewed, path):
    """At 390 px the read-outs broke as "... attention factor 0.1·ln s + 1" /
    "= 1.1386" and "18 of" / "64": a value is one line, on the line of its
    label's last operand and "=" if the label ends so."""
    page = viewed(path, width=390).page
    values = page.evaluate(VALUES_WITH_THEIR_LABEL)
    assert len(values) >= 2 and any("=" in text for _, text in values)
    assert [text for whole, text in values if not whole] == []


# Each visible slider's width at its minimum and at its maximum value.
SLIDER_WIDTHS = """() => [...document.querySelectorAll('.pw input[type=range]')]
  .filter(input => input.offsetParent).map(input => {
    const width = () => input.getBoundingClientRect().width;
    const at = (value) => {
      input.value = value;
      input.dispatchEvent(new Event('input', { bubbles: true }));
      return width();
    };
    return [input.labels[0].textContent, at(input.min), at(input.max)];
  })"""


@pytest.mark.parametrize("path", [EXPLORER, EXTENSION])
def test_a_slider_keeps_its_length_as_its_value_grows_at_390_px(
    guarded, site_url, path
):
    """At the longest training length the read-out "8,388,608" took room from its
    slider: the value beside a slider is as wide as the longest it can show."""
    page = open_widget(guarded, site_url, path, width=390).page
    widths = page.evaluate(SLIDER_WIDTHS)
    assert len(widths) >= 2
    assert [(name, a, b) for name, a, b in widths if abs(a - b) > 0.5] == []


WRAPPED_CELLS = """() => [...document.querySelectorAll(
  'details[open] .pw-table th, details[open] .pw-table td')].filter((cell) =>
  [...cell.childNodes].some((text) => {
    const range = document.createRange();
    range.selectNodeContents(text);
    return range.getClientRects().length > 1;  // a line box per line
  })).map((cell) => cell.textContent)"""


@pytest.mark.parametrize("path", [EXPLORER, EXTENSION])
def test_table_numbers_keep_to_one_line_at_390_px(guarded, site_url, path):
    """A fixed table layout squeezed the per-dimension and per-pair tables into
    the phone's width and broke numbers mid-digit ("64.000 / 0"): the table is as
    wide as its one-line cells, and its region scrolls sideways, by keyboard too,
    with shadows at its cut edges as the page's wide tables have."""
    tab = open_widget(guarded, site_url, path, width=390)
    page = tab.page
    page.locator(".pw summary").first.click()
    page.wait_for_selector("details[open] .pw-table tbody tr")  # 200 ms later
    cells = page.locator("details[open] .pw-table td").count()
    assert cells >= 6 * 32
    wrapped = page.evaluate(WRAPPED_CELLS)
    assert wrapped == []
    region = page.locator("details[open] .pw-scroll")
    assert region.evaluate("r => r.scrollWidth > r.clientWidth")
    shadows = region.evaluate("r => getComputedStyle(r).backgroundImage")
    assert shadows.count("radial-gradient") == 2, shadows  # at the cut edges
    assert region.get_attribute("tabindex") == "0"
    assert region.get_attribute("role") == "region"
    assert region.get_attribute("aria-label")
    assert tab.errors == []


MEASURE_SLIDER = """async () => {
  const slider = document.querySelector('.pw input[type=range]');
  const times = [];
  for (let i = 0; i < 80; i++) {
    slider.value = String((i * 37) % 1024);
    const start = performance.now();
    slider.dispatchEvent(new Event('input', { bubbles: true }));
    document.body.offsetHeight;  // include style and layout
    times.push(performance.now() - start);
    await new Promise(requestAnimationFrame);
  }
  return times;
}"""

INSTRUMENT_DRAG = """() => {
  window.dragTimes = [];
  const overlay = [...document.querySelectorAll('.pw-heat-overlay')]
    .find(c => c.offsetParent);  // rows are positions: a drag moves down
  let start = 0;
  window.addEventListener('pointermove', () => { start = performance.now(); }, true);
  overlay.addEventListener('pointermove', () => {
    document.body.offsetHeight;
    window.dragTimes.push(performance.now() - start);
  });
}"""


def test_update_while_dragging_fits_in_a_frame(guarded, site_url):
    tab = open_widget(guarded, site_url, EXPLORER)
    page = tab.page
    set_explorer(page, 512, 10000, 1024, 100, 700)
    page.get_by_text("Every dimension as a table").click()  # worst case: table open
    slider = page.evaluate(MEASURE_SLIDER)
    page.evaluate(INSTRUMENT_DRAG)
    overlay = page.locator(".pw-heat-overlay:visible")
    overlay.scroll_into_view_if_needed()
    box = overlay.bounding_box()
    x = box["x"] + box["width"] / 2
    page.mouse.move(x, box["y"] + 0.1 * box["height"])
    page.mouse.down()
    page.mouse.move(x, box["y"] + 0.6 * box["height"], steps=60)
    page.mouse.up()
    drag = page.evaluate("window.dragTimes")
    assert len(drag) >= 30
    for name, times in [("slider", slider), ("drag", drag)]:
        median, worst = statistics.median(times), max(times)
        print(f"{name}: median {median:.2f} ms, worst {worst:.2f} ms, n={len(times)}")
        assert median < 50, (name, times)
    assert tab.errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_on_every_state_of_the_widgets(guarded, site_url, scheme):
    found = []
    for path in [EXPLORER, EXTENSION]:
        page = open_widget(guarded, site_url, path, color_scheme=scheme).page
        page.add_script_tag(url=site_url + AXE_PATH)
        page.locator(".pw summary").first.click()
        set_field(page, "Base", "1")  # a refused value: the message must pass too
        tabs = page.get_by_role("tab")
        for i in range(max(tabs.count(), 1)):
            if tabs.count():
                tabs.nth(i).click()
            found += [(path, i, v) for v in page.evaluate(AXE_RUN)]
    assert found == []


# ---- the page's prose names only axes the widget draws ----
# Each chart records what it drew: a canvas its axis labels and scales (data-axis-x,
# data-axis-y, data-scale-x, data-scale-y, data-marks, written by plot.js's axes and
# markX from the strings they draw), a heatmap its rows and columns (data-axis-rows,
# data-axis-columns). The prose of the widget's section is read for what it says the
# picture shows: "rows are ...", "columns are ...", "Y against X", "on log axes",
# "with the ... marked". Each claim must hold for one chart the widget draws.
TERMS = ["pair index", "position", "dimension", "offset", "wavelength", "slow-down",
         "distance", "bias", "score"]  # fmt: skip
CLAUSE = re.compile(r"[.;:](?=\s)")

SECTION_PROSE = """root => {
  const heading = (el) => /^H[1-3]$/.test(el.tagName), parts = [];
  const walk = (step, keep) => {
    for (let el = step(root); el && !heading(el); el = step(el)) keep(el.innerText);
  };
  walk((el) => el.previousElementSibling, (t) => parts.unshift(t));
  walk((el) => el.nextElementSibling, (t) => parts.push(t));
  return parts.join(' ');
}"""


def terms_in(text: str) -> list[str]:
    """The axis terms in ``text``, in reading order."""
    found = [(m.start(), t) for t in TERMS for m in re.finditer(re.escape(t), text)]
    return [t for _, t in sorted(found)]


def axis_claims(prose: str) -> list[dict]:
    """What the prose says the widget's pictures show, one dict per claim."""
    text = re.sub(r"\s+", " ", prose).lower()
    claims = [
        {"axisRows" if kind == "rows" else "axisColumns": noun.rstrip("s")}
        for kind, noun in re.findall(
            r"\b(rows|columns) are (?:the )?(?:[\d,]+ )?(\w+)", text
        )
    ]
    for clause in CLAUSE.split(text):
        if " against " not in clause:
            continue
        before, after = clause.split(" against ", 1)
        x, y = terms_in(after)[:1], terms_in(before)[-1:]
        mark = re.search(r"with the ([\w -]+?) marked", clause)
        if x:
            claims.append({"axisX": x[0], "axisY": y[0] if y else None,
                           "log": "log ax" in clause,
                           "mark": mark.group(1) if mark else None})  # fmt: skip
    return claims


def holds(claim: dict, chart: dict) -> bool:
    for key in ("axisRows", "axisColumns", "axisX", "axisY"):
        if claim.get(key) and claim[key] not in chart.get(key, "").lower():
            return False
    if claim.get("log") and not chart.get("scaleX") == chart.get("scaleY") == "log":
        return False
    mark = claim.get("mark")
    return not mark or mark in chart.get("marks", "").lower()


def test_axis_claims_read_the_prose():
    """The reader of the prose, on sentences of the kind the two widget pages use."""
    claims = axis_claims(
        "1. The whole matrix. Rows are positions 0 to 127, columns are the 64 "
        "dimensions. Then PE(A) · PE(A + k) against the offset k, for four starts. "
        "The figures show each pair's slow-down against its original wavelength, "
        "both on log axes, with the training length marked: pairs left of it."
    )
    assert claims == [
        {"axisRows": "position"},
        {"axisColumns": "dimension"},
        {"axisX": "offset", "axisY": None, "log": False, "mark": None},
        {"axisX": "wavelength", "axisY": "slow-down", "log": True,
         "mark": "training length"},
    ]  # fmt: skip
    drawn = {
        "axisX": "pair index i",
        "axisY": "slow-down (log)",
        "scaleX": "linear",
        "scaleY": "log",
        "marks": "",
    }  # fmt: skip  (the widget before this test)
    assert not holds(claims[3], drawn)
    assert not holds(claims[0], {"axisRows": "dimension", "axisColumns": "position"})


@pytest.mark.parametrize("path", [EXPLORER, EXTENSION])
def test_prose_names_only_axes_the_widget_draws(guarded, site_url, path):
    page = open_widget(guarded, site_url, path).page
    tabs = page.get_by_role("tab")
    for i in range(tabs.count()):  # a tab's charts are drawn when it is shown
        tabs.nth(i).click()
    charts = page.evaluate(
        "() => [...document.querySelectorAll("
        "'.pw [data-axis-x], .pw [data-axis-rows]')].map(e => ({...e.dataset}))"
    )
    prose = page.locator(".posenc-widget").evaluate(SECTION_PROSE)
    claims = axis_claims(prose)
    assert claims, "the widget's section says nothing about its axes"
    for claim in claims:
        assert any(holds(claim, chart) for chart in charts), (claim, charts)


@pytest.mark.parametrize("path", [EXPLORER, EXTENSION])
def test_controls_are_44_px_touch_targets_at_390_px(guarded, site_url, path):
    page = open_widget(guarded, site_url, path, width=390).page
    small = []
    tabs = page.get_by_role("tab")
    for i in range(max(tabs.count(), 1)):
        if tabs.count():
            tabs.nth(i).click()
        small += page.evaluate(
            "() => [...document.querySelectorAll('.pw input, .pw button, .pw summary')]"
            ".filter(e => e.offsetParent).map(e => [e.outerHTML.slice(0, 80),"
            " e.getBoundingClientRect()])"
            ".filter(([, r]) => r.width < 44 || r.height < 44)"
            ".map(([html, r]) => [html, r.width, r.height])"
        )
    assert small == []


def test_controls_work_by_keyboard(guarded, site_url):
    page = open_widget(guarded, site_url, EXTENSION).page
    slider = page.get_by_label("Factor", exact=True)
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("End")
    state = json.loads(page.locator(".posenc-widget").get_attribute("data-state"))
    assert state["s"] == 64
    length = page.get_by_label("Training length", exact=True)
    length.focus()
    page.keyboard.press("ArrowLeft")
    assert json.loads(page.locator(".posenc-widget").get_attribute("data-state"))[
        "L0"
    ] == 2**11  # fmt: skip
    assert length.get_attribute("aria-valuetext") == "2,048"
    page.locator(".pw summary").focus()
    page.keyboard.press("Enter")
    assert page.locator("tr[data-pair]").first.is_visible()


def test_learned_label_is_clear_of_the_markers(guarded, site_url, subtests):
    page = open_widget(guarded, site_url, EXPLORER).page
    page.get_by_role("tab", name="Learned").click()
    for a, b in [(96, 70), (70, 120), (65, 127), (20, 40)]:
        with subtests.test(a=a, b=b):
            page.get_by_label("Position A", exact=True).fill(str(a))
            page.get_by_label("Position B", exact=True).fill(str(b))
            overlay = page.locator(".pw-heat-overlay:visible")
            label = json.loads(overlay.get_attribute("data-label"))
            width = overlay.bounding_box()["width"]
            markers = [(p + 0.5) / 128 * width for p in (a, b)]  # 128 positions
            assert label["text"].startswith("no row")
            assert label["left"] >= 64 / 128 * width - 1e-6  # in the hatched part
            assert not any(label["left"] < x < label["right"] for x in markers)


def test_alibi_lines_have_a_legend(guarded, site_url):
    page = open_widget(guarded, site_url, EXPLORER).page
    page.get_by_role("tab", name="ALiBi").click()
    set_field(page, "Heads", 12)
    legend = page.get_by_label("Line of each head")
    slopes = alibi.alibi_slopes(12)
    entries = legend.locator("li")
    assert entries.count() == 12
    for i in (0, 11):
        assert entries.nth(i).inner_text().startswith(f"head {i + 1}, m = ")
        assert number(entries.nth(i).inner_text().split("= ")[1]) == pytest.approx(
            slopes[i], rel=1e-5
        )
    styles = page.evaluate(
        "() => [...document.querySelectorAll("
        "'[aria-label=\"Line of each head\"] line')]"
        ".map(l => l.getAttribute('stroke') + l.getAttribute('stroke-dasharray'))"
    )
    assert len(set(styles)) == 12  # every head's line can be told apart
    dashes = page.evaluate(
        "() => [...document.querySelectorAll("
        "'[aria-label=\"Line of each head\"] line')]"
        ".map(l => l.getAttribute('stroke-dasharray') || 'solid')"
    )
    assert all(len(set(dashes[i : i + 4])) == 4 for i in range(9))  # without colour
    # 12 heads: head 9's slope 2^-0.5 is steeper than head 1's 1/2, so the y axis
    # must reach -max(m) * far or head 9's line leaves the plot
    far = int(page.get_by_label("Position A").get_attribute("max"))  # n - 1
    y_from = page.locator("canvas[data-y-from]").get_attribute("data-y-from")
    assert float(y_from) == pytest.approx(-max(slopes) * far)
