"""Unit tests for the MkDocs hook and the macros module."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from posenc_docs.pages.format import count, fixed

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "hooks"))  # as MkDocs does: hooks import build_cache


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build_assets = load("build_assets")
macros = load("macros")
notebooks = load("notebooks")


def test_missing_katex_stops_the_build_with_instructions(tmp_path):
    with pytest.raises(PluginError, match="npm ci"):
        build_assets.katex_dir(tmp_path)


def test_katex_files_include_fonts():
    files = build_assets.katex_files(build_assets.katex_dir(ROOT))
    assert "assets/katex/katex.min.css" in files
    assert not [name for name in files if name.endswith(".js")]  # math is prerendered
    assert sum(name.endswith(".woff2") for name in files) >= 10


def test_figures_are_cached_by_their_module_sources(tmp_path, monkeypatch):
    module = "posenc_docs.figures.part3_nope"  # one figure
    monkeypatch.setattr(build_assets, "figure_modules", lambda project_dir: [module])
    monkeypatch.setattr(build_assets.build_cache, "FIGURE_SPECS", {})
    monkeypatch.setattr(build_assets.build_cache, "WIDGET_ATTRIBUTES", {})
    first = build_assets.figure_files(ROOT, tmp_path)
    assert len(first) == 2 and all(svg.startswith(b"<?xml") for svg in first.values())
    drawn = []

    def record(jobs):
        drawn.extend(jobs)
        return [json.dumps({"figures": [], "widgets": {}}).encode()] * len(jobs)

    monkeypatch.setattr(build_assets, "render_all", record)
    second = build_assets.figure_files(ROOT, tmp_path)
    assert drawn == [] and second == first
    key = build_assets.build_cache.artifact_key
    monkeypatch.setattr(build_assets.build_cache, "artifact_key", lambda *a, **k: key(
        *a, "changed", **k))  # fmt: skip
    build_assets.figure_files(ROOT, tmp_path)
    assert drawn == [(module, "light"), (module, "dark")]


def test_parallel_and_serial_drawing_give_the_same_bytes():
    jobs = [(f"posenc_docs.figures.{m}", t) for m in ("part3_nope", "part3_axes")
            for t in ("light", "dark")]  # fmt: skip
    assert build_assets.render_all(jobs) == [
        build_assets.build_cache.draw_module(*j) for j in jobs
    ]


def test_number_formatting():
    assert fixed(3.535255, 4) == "3.5353"
    assert fixed(-0.41614, 4) == "\N{MINUS SIGN}0.4161"
    assert count(6283.185) == "6,283"
    assert count(60611.48) == "60,611"


def test_figure_markdown_is_one_picture_relative_to_the_page():
    from posenc_docs.figures import FIGURES

    slug = FIGURES[0].slug
    text = macros.figure_markdown(slug, "part1/page/")
    assert text.count("<picture") == 1 and text.count("<img") == 1
    assert f'<img src="../../figures/{slug}-light.svg"' in text
    assert f'<source srcset="../../figures/{slug}-dark.svg"' in text
    assert f'src="../figures/{slug}-light.svg"' in macros.figure_markdown(
        slug, "part1/"
    )
    assert 'media="(prefers-color-scheme: dark)"' in text
    assert f'src="figures/{slug}-light.svg"' in macros.figure_markdown(slug, "")
    with pytest.raises(KeyError, match="no figure named"):
        macros.figure_markdown("nope", "")


def test_figure_alt_text_is_escaped_for_an_attribute(monkeypatch):
    from posenc_docs import figures
    from posenc_docs.figures.spec import FigureSpec

    spec = FigureSpec(slug="q", draw=None, alt='a "quoted" <b> & c')
    monkeypatch.setitem(figures.BY_SLUG, "q", spec)
    assert 'alt="a &quot;quoted&quot; &lt;b&gt; &amp; c"' in macros.figure_markdown(
        "q", ""
    )


def test_svg_size_reads_matplotlib_points_as_css_pixels():
    from posenc_docs.figures.spec import svg_size

    assert svg_size(b'<svg width="504pt" height="302.4pt" viewBox="0 0 5 3">') == (
        672,
        403,
    )


def test_figure_images_get_their_size_and_widget_fallbacks_noscript():
    page = (
        '<p><picture class="posenc-figure"><img src="../figures/a-light.svg" '
        'alt="x"></picture></p>'
        '<div class="posenc-widget" data-widget="w"><p><picture class="posenc-figure">'
        '<img src="../figures/b-light.svg"></picture></p></div>'
    )
    sized = build_assets.with_sizes(
        page, {"figures/a-light.svg": (640, 480), "figures/b-light.svg": (10, 20)}
    )
    assert (
        '<img src="../figures/a-light.svg" width="640" height="480" alt="x">' in sized
    )
    out = build_assets.widget_fallbacks_in_noscript(sized)
    assert out.count("<noscript>") == 1
    assert out.index("<noscript>") > out.index('class="posenc-widget"')


NOTEBOOK_PAGE = """<div id="cell-id=ab12cd34">x</div><!-- Load mathjax -->
<script src=""> </script>
<!-- MathJax configuration -->
<script type="text/x-mathjax-config">MathJax.Hub.Config({});</script>
<script type="module">const m = await import("https://cdnjs.cloudflare.com/m.mjs");</script>
<div id="cell-id=ffee0011">y</div><script type="module">keep()</script>"""


def test_notebook_pages_lose_cdn_loaders_and_random_ids():
    cleaned = notebooks.clean_notebook_html(NOTEBOOK_PAGE)
    assert "cdnjs" not in cleaned and "mathjax" not in cleaned.lower()
    assert 'src=""' not in cleaned and "keep()" in cleaned
    assert 'id="cell-1"' in cleaned and 'id="cell-2"' in cleaned


def test_notebook_cleaner_notices_when_mkdocs_jupyter_changes():
    with pytest.raises(PluginError, match="changed shape"):
        notebooks.clean_notebook_html("<div>no loaders here</div>")


def test_stdout_split_by_flush_timing_is_joined():
    output = (
        '<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="text/plain"'
        ' tabindex="0">\n<pre>'
    )
    one = f"{output}first\nsecond\n</pre>\n</div>\n</div>"
    split = (
        f"{output}first\n</pre>\n</div>\n</div>\n"
        '<div class="jp-OutputArea-child">\n'
        '<div class="jp-OutputPrompt jp-OutputArea-prompt"></div>\n'
        f"{output}second\n</pre>\n</div>\n</div>"
    )
    assert notebooks.STREAM_BREAK.sub("", split) == one
    result = split.replace('prompt"></div>', 'prompt">Out[3]:</div>')
    assert notebooks.STREAM_BREAK.sub("", result) == result  # not a stream


katex = load("katex")


@pytest.fixture(scope="module")
def renderer():
    process = katex.KatexRenderer(ROOT)
    yield process
    process.close()


def test_arithmatex_spans_become_katex_html(renderer):
    page = (
        '<p>Let <span class="arithmatex">\\(a &lt; b\\)</span>.</p>\n'
        '<div class="arithmatex">\\[\n\\frac{1}{2}\n\\]</div>'
    )
    out = katex.render_arithmatex(page, renderer, "x.md")
    assert out.count('class="katex"') == 2 and 'class="katex-display"' in out
    assert "<mo>&lt;</mo>" in out and "\\(" not in out and "\\[" not in out
    assert out.startswith('<p>Let <span class="arithmatex"><span class="katex">')


def test_invalid_tex_names_the_page_and_the_formula(renderer):
    page = '<span class="arithmatex">\\(\\frac{1\\)</span>'
    with pytest.raises(PluginError, match=r"part1/x\.md.*frac\{1"):
        katex.render_arithmatex(page, renderer, "part1/x.md")


def test_notebook_dollars_render_outside_code_only(renderer):
    cell = (
        '<div class="jp-RenderedHTMLCommon jp-MarkdownOutput" data-mime-type="x">'
        "<p>Angle $m\\theta$ and</p>$$x^2$$<code>$not math$</code></div>"
        "<pre>$also not$</pre>"
    )
    out = katex.render_notebook_cells(cell, renderer, "notebooks/n.py")
    assert out.count('class="katex"') == 2
    assert "<code>$not math$</code>" in out and "<pre>$also not$</pre>" in out
