"""hooks/site_css.py: Material's stylesheet keeps every rule a page or a script
can use, and ships under a name of its own content.

The browser checks (pages look the same with the whole stylesheet; no dropped
selector matches, search results shown) are in tests/test_browser.py."""

import re
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hooks"))
import site_css  # noqa: E402

CSS = ".page{a:1}.added{a:2}.state--open{a:3}.tabbed-set{a:4}p{a:5}"


def test_a_class_counts_if_a_page_names_it_or_a_script_could_add_it():
    pages = ['<p class="page other">']
    scripts = 'el.classList.add("added"); x.className = `state--${state}`'
    assert site_css.present_classes(CSS, pages, scripts) == {
        "page", "other", "added", "state--open"
    }  # fmt: skip
    assert site_css.present_classes(CSS, pages, "") == {"page", "other"}


def test_rules_no_page_or_script_can_use_go_and_read_properties_stay():
    css = ":root{--hue:1;--unused:2;--typeset:3}" + CSS + "p{color:var(--typeset)}"
    pruned = site_css.for_site(
        css, ['<p class="page">'], "", other_css="b{color:hsl(var(--hue))}"
    )
    assert pruned == ":root{--hue:1;--typeset:3}.page{a:1}p{a:5}p{color:var(--typeset)}"


def test_the_stylesheet_ships_under_its_contents_name_and_every_page_links_it(
    tmp_path,
):
    stylesheets = tmp_path / "assets" / "stylesheets"
    stylesheets.mkdir(parents=True)
    (stylesheets / "main.0123abcd.min.css").write_text(CSS)
    (stylesheets / "palette.css").write_text("")
    link = '<link rel="stylesheet" href="{}assets/stylesheets/main.0123abcd.min.css">'
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text(link.format("") + '<p class="page">')
    (tmp_path / "sub" / "index.html").write_text(link.format("../"))
    (tmp_path / "bundle.js").write_text('add("added")')
    site_css.on_post_build(SimpleNamespace(site_dir=str(tmp_path)))
    (shipped,) = stylesheets.glob("main.*.min.css")
    assert shipped.read_text() == ".page{a:1}.added{a:2}p{a:5}"
    assert re.fullmatch(r"main\.[0-9a-f]{8}\.min\.css", shipped.name)
    for page, prefix in (("index.html", ""), ("sub/index.html", "../")):
        text = (tmp_path / page).read_text()
        assert f'href="{prefix}assets/stylesheets/{shipped.name}"' in text
