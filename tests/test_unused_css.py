"""hooks/unused_css.py: what a page cannot use goes, everything it can use stays.

The browser check that notebook pages look the same with JupyterLab's whole
stylesheet is in tests/test_browser.py."""

import sys
from pathlib import Path

import tinycss2
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hooks"))
import unused_css  # noqa: E402

PAGE = '<div class="cell out"><p class="text">x</p></div>'


def rules(css: str) -> list[str]:
    """Each top-level rule, serialized without spaces: easy to compare."""
    parsed = tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    return ["".join(rule.serialize().split()) for rule in parsed]


def test_a_rule_goes_when_a_class_it_needs_is_not_on_the_page():
    css = ".cell p{a:1}.cell .dialog{b:2}.dialog{c:3}p{d:4}#id{e:5}"
    assert rules(unused_css.for_page(css, PAGE)) == [
        ".cellp{a:1}",
        "p{d:4}",
        "#id{e:5}",
    ]


def test_only_the_selectors_that_can_match_stay_in_a_list():
    css = ".menu li, .cell > .text, .out.cell:hover::before {a:1}"
    kept = unused_css.for_page(css, PAGE)
    assert rules(kept) == [".cell>.text,.out.cell:hover::before{a:1}"]


def test_classes_inside_functions_and_attributes_do_not_count():
    css = ".cell:not(.dialog){a:1}:is(.menu, .cell){b:2}[class~=menu]{c:3}.menu{d:4}"
    assert rules(unused_css.for_page(css, PAGE)) == [
        ".cell:not(.dialog){a:1}",
        ":is(.menu,.cell){b:2}",
        "[class~=menu]{c:3}",
    ]


def test_root_after_a_combinator_matches_nothing():
    css = ":root{--a:1;b:var(--a)}.cell :root{c:2}:root .cell{d:3}.x,:root{e:4}"
    assert rules(unused_css.for_page(css, PAGE)) == [
        ":root{--a:1;b:var(--a)}",
        ":root.cell{d:3}",
        ":root{e:4}",
    ]


def test_grouping_rules_keep_their_kept_rules_and_go_when_empty():
    css = "@media screen{.cell{a:1}.menu{b:2}}@media print{.menu{c:3}}@charset 'x';"
    assert rules(unused_css.for_page(css, PAGE)) == ["@mediascreen{.cell{a:1}}"]


def test_custom_properties_stay_only_when_something_kept_reads_them():
    css = (
        ".cell{--used:var(--chained);--chained:red;--unused:blue;--by-page:0;"
        "color:var(--used)}.menu{color:var(--only-dropped)}"
        "p{--only-dropped:1;--never-read:2}"
    )
    page = PAGE + '<span style="width: var(--by-page)"></span>'
    assert rules(unused_css.for_page(css, page)) == [
        ".cell{--used:var(--chained);--chained:red;--by-page:0;color:var(--used)}"
    ]


def test_keyframes_stay_only_when_a_kept_rule_names_them():
    css = (
        "@keyframes spin{to{a:1}}@-webkit-keyframes spin{to{a:1}}"
        "@keyframes glow{to{b:1}}.cell{animation:spin 1s}.menu{animation:glow 1s}"
    )
    assert rules(unused_css.for_page(css, PAGE)) == [
        "@keyframesspin{to{a:1}}",
        "@-webkit-keyframesspin{to{a:1}}",
        ".cell{animation:spin1s}",
    ]


CLASSES = ["cell", "out", "text", "menu", "dialog"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(CLASSES), min_size=1, max_size=3), max_size=6),
    st.sets(st.sampled_from(CLASSES)),
)
def test_a_compound_class_selector_stays_exactly_when_the_page_has_its_classes(
    selectors, on_page
):
    css = "".join(
        f"{''.join('.' + c for c in s)}{{n:{i}}}" for i, s in enumerate(selectors)
    )
    page = f'<b class="{" ".join(sorted(on_page))}"></b>'
    expected = [
        f"{''.join('.' + c for c in s)}{{n:{i}}}"
        for i, s in enumerate(selectors)
        if set(s) <= on_page
    ]
    assert rules(unused_css.for_page(css, page)) == expected


def test_one_parse_serves_pages_with_other_classes():
    """The stylesheet is parsed once for all pages: pruning it for one page must not
    change what another page keeps (nor what the first keeps the next time)."""
    css = (
        ".cell .text,.menu{--a:1;color:var(--a)}@media screen{.menu{b:2}.cell{c:3}}"
        "@keyframes spin{to{x:1}}.menu{animation:spin}"
    )
    menu_page = '<nav class="menu"></nav>'
    fresh = {}
    for page in (PAGE, menu_page):
        unused_css._parse.cache_clear()
        fresh[page] = unused_css.for_classes(css, unused_css.page_classes(page))
    unused_css._parse.cache_clear()
    for page in (PAGE, menu_page, PAGE):
        classes = unused_css.page_classes(page) | {"unused"}  # not the cached call
        assert unused_css.for_classes(css, classes) == fresh[page]
    assert unused_css._parse.cache_info().misses == 1
    assert fresh[PAGE] != fresh[menu_page]
