"""Unit tests for the MkDocs hook and the macros module."""

import html.parser
import importlib.util
import re
import sys
import zlib
from pathlib import Path
from types import SimpleNamespace

import markdown
import material
import pytest
from bs4 import BeautifulSoup
from hypothesis import given, settings
from hypothesis import strategies as st
from mkdocs.exceptions import PluginError

from posenc_docs.figures.spec import dark_variant
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
accessible_names = load("accessible_names")


def test_missing_katex_stops_the_build_with_instructions(tmp_path):
    with pytest.raises(PluginError, match="npm ci"):
        build_assets.katex_dir(tmp_path)


def test_katex_files_include_fonts():
    files = build_assets.katex_files(build_assets.katex_dir(ROOT))
    assert "assets/katex/katex.min.css" in files
    assert not [name for name in files if name.endswith(".js")]  # math is prerendered
    assert sum(name.endswith(".woff2") for name in files) >= 10


def test_katex_fonts_show_only_if_ready():
    """A font that came late would move the text beside its formulas (issue 12)."""
    css = build_assets.katex_files(build_assets.katex_dir(ROOT))[
        "assets/katex/katex.min.css"
    ].decode()
    faces = re.findall(r"@font-face\{[^}]*\}", css)
    assert len(faces) == 20  # KaTeX 0.16's twenty faces, each shown only if ready
    assert all("font-display:optional" in face for face in faces), faces
    assert "font-display:block" not in css


@pytest.mark.parametrize(
    "css", [b"@font-face{src:x}", b"@font-face{font-display:block}a{font-display:swap}"]
)
def test_katex_fonts_shown_another_way_stop_the_build(css):
    with pytest.raises(PluginError, match="font-display"):
        build_assets.fonts_shown_only_if_ready(css)


def test_figures_are_cached_by_module_and_by_figure(tmp_path, monkeypatch):
    module = "posenc_docs.figures.part3_nope"  # one figure
    monkeypatch.setattr(build_assets, "figure_modules", lambda project_dir: [module])
    monkeypatch.setattr(build_assets.build_cache, "FIGURE_SPECS", {})
    monkeypatch.setattr(build_assets.build_cache, "WIDGET_ATTRIBUTES", {})

    def drawn_files():  # what on_files and on_env do for one build
        return build_assets.FigureFiles(ROOT, tmp_path).files()

    first = drawn_files()
    assert len(first) == 4  # light, dark; desktop, phone
    assert all(svg.startswith(b"<?xml") for svg in first.values())
    for light_path, svg in first.items():
        if light_path.endswith("-light.svg"):  # dark: the light one recoloured
            dark_path = light_path.removesuffix("-light.svg") + "-dark.svg"
            assert first[dark_path] == dark_variant(svg) != svg
    drawn = []

    class Recording(build_assets.Drawing):
        def __init__(self, variants):
            drawn.extend(variants)
            super().__init__(variants)

    monkeypatch.setattr(build_assets, "Drawing", Recording)
    assert drawn_files() == first and drawn == []
    keys = build_assets.figure_keys
    monkeypatch.setattr(build_assets, "figure_keys", lambda root: {
        m: key + "-edited" for m, key in keys(root).items()})  # fmt: skip
    assert drawn_files() == first  # the module changed,
    assert drawn == []  # not what its figure is made of: nothing drawn
    key = build_assets.build_cache.artifact_key
    monkeypatch.setattr(build_assets.build_cache, "artifact_key", lambda *a, **k: key(
        *a, "changed", **k))  # fmt: skip
    assert drawn_files() == first
    slug = "part3_nope-temperatures"  # one theme drawn: dark is light recoloured
    assert drawn == [(slug, False), (slug, True)]


TWO_FIGURES = ["part3_nope-temperatures", "part3_axes-pair-axes"]
TWO_MODULES = [f"posenc_docs.figures.{m}" for m in ("part3_nope", "part3_axes")]


@pytest.mark.parametrize("server", [True, False], ids=["fork server", "spawn"])
def test_parallel_and_serial_drawing_give_the_same_bytes(server, monkeypatch):
    if not server:  # as on Windows, which has no fork server
        monkeypatch.setattr("multiprocessing.get_all_start_methods", lambda: ["spawn"])
    method = build_assets.worker_context().get_start_method()
    assert method == ("forkserver" if server else "spawn")
    variants = [(slug, phone) for slug in TWO_FIGURES for phone in (False, True)]
    drawing = build_assets.Drawing(variants)
    assert drawing.pool is not None  # four variants: drawn by worker processes
    serial = {v: build_assets.build_cache.draw_variant(*v) for v in variants}
    assert drawing.result() == serial and drawing.pool is None


def test_pages_can_build_while_the_figures_are_drawn(tmp_path, monkeypatch):
    monkeypatch.setattr(build_assets, "figure_modules", lambda _: TWO_MODULES)
    monkeypatch.setattr(build_assets.build_cache, "FIGURE_SPECS", {})
    monkeypatch.setattr(build_assets.build_cache, "WIDGET_ATTRIBUTES", {})
    figures = build_assets.FigureFiles(ROOT, tmp_path)
    drawings = figures.drawing.submitted.result()  # submitted off the main thread
    assert not any(future.done() for future in drawings)  # not waited for
    assert set(build_assets.build_cache.FIGURE_SPECS) == set(TWO_FIGURES)  # for macros
    assert sorted(figures.files()) == sorted(figures.paths) and len(figures.paths) == 8
    stored = [p.name for p in tmp_path.iterdir()]
    assert len(stored) == 4 and not [n for n in stored if n.startswith(".")]


def test_figure_fields_are_read_by_a_worker_not_by_the_build(tmp_path):
    """A module the cache lacks is imported by a worker process for its fields:
    the build process imports neither matplotlib nor torch for its figures."""
    import subprocess

    script = f"""
import sys
sys.path.insert(0, {str(ROOT / "hooks")!r})
import build_assets
build_assets.figure_modules = lambda _: ["posenc_docs.figures.part3_nope"]
Path = build_assets.Path
figures = build_assets.FigureFiles(Path({str(ROOT)!r}), Path({str(tmp_path)!r}))
drawn = figures.files()
print(sorted(build_assets.build_cache.FIGURE_SPECS), len(drawn),
      "matplotlib" in sys.modules, "torch" in sys.modules)
"""
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, text=True,
                         capture_output=True, check=True)  # fmt: skip
    assert run.stdout.split("\n")[0] == "['part3_nope-temperatures'] 4 False False"


def test_number_formatting():
    assert fixed(3.535255, 4) == "3.5353"
    assert fixed(-0.41614, 4) == "\N{MINUS SIGN}0.4161"
    assert count(6283.185) == "6,283"
    assert count(60611.48) == "60,611"


def test_figure_markdown_is_one_numbered_zoomable_picture_relative_to_the_page():
    from posenc_docs.figures import FIGURES

    slug = FIGURES[0].slug
    text = macros.figure_markdown(slug, "part1/page/", 3)
    assert text.count("<picture") == 1 and text.count("<img") == 1
    assert f'<img src="../../figures/{slug}-light.svg"' in text
    assert f'<source srcset="../../figures/{slug}-dark.svg"' in text
    assert f'<source srcset="../../figures/{slug}-phone-light.svg"' in text
    assert f'<source srcset="../../figures/{slug}-light.svg" media="print">' in text
    assert f'<a class="posenc-zoom" href="../../figures/{slug}-light.svg"' in text
    alt = html.escape(FIGURES[0].alt, quote=True)
    assert f'<img src="../../figures/{slug}-light.svg" alt="{alt}"' in text
    assert (  # shown once more under it, but read out once: as the alt
        f'<figcaption><strong>Figure 3.</strong> <span aria-hidden="true">{alt}'
        "</span></figcaption>"
    ) in text
    assert f'src="../figures/{slug}-light.svg"' in macros.figure_markdown(
        slug, "part1/", 1
    )
    # without JavaScript the page is light: its dark sources match nothing
    assert text.count('media="not all" data-theme="dark"') == 2
    assert f'src="figures/{slug}-light.svg"' in macros.figure_markdown(slug, "", 1)
    with pytest.raises(KeyError, match="no figure named"):
        macros.figure_markdown("nope", "", 1)


def test_figures_are_numbered_in_page_order_and_referenced_by_name():
    page = (
        'x {{ figref("b") }}\n{{ figure("a") }}\n{{ figure( "b" ) }}\n{{ figure("a") }}'
    )
    numbers = macros.figure_numbers(page)
    assert numbers == {"a": 1, "b": 2}
    assert macros.figure_reference("b", numbers) == "[Figure 2](#fig-b)"
    with pytest.raises(KeyError, match="this page shows"):
        macros.figure_reference("c", numbers)


def test_figure_alt_text_is_escaped_for_an_attribute(monkeypatch):
    from posenc_docs import figures
    from posenc_docs.figures.spec import FigureSpec

    spec = FigureSpec(slug="q", draw=None, alt='a "quoted" <b> & c')
    monkeypatch.setitem(figures.BY_SLUG, "q", spec)
    assert 'alt="a &quot;quoted&quot; &lt;b&gt; &amp; c"' in macros.figure_markdown(
        "q", "", 1
    )


def test_svg_size_reads_matplotlib_points_as_css_pixels():
    from posenc_docs.figures.spec import svg_size

    assert svg_size(b'<svg width="504pt" height="302.4pt" viewBox="0 0 5 3">') == (
        672,
        403,
    )


def test_figure_images_and_sources_get_their_size():
    page = (
        '<picture class="posenc-figure"><source srcset="../figures/a-phone-light.svg"'
        ' media="(max-width: 10em)"><img src="../figures/a-light.svg" alt="x">'
        "</picture>"
    )
    sizes = {"figures/a-light.svg": (640, 480), "figures/a-phone-light.svg": (10, 20)}
    sized = build_assets.with_sizes(page, sizes)
    assert (
        '<img src="../figures/a-light.svg" width="640" height="480" alt="x">' in sized
    )
    assert 'a-phone-light.svg" width="10" height="20" media=' in sized


def test_only_the_sites_drawn_figures_are_sized_and_an_unknown_one_is_named():
    """An SVG in some other figures/ folder is left alone; one in the site's
    figures/ that no figure module draws stops the build naming it (it was a bare
    KeyError)."""
    sizes = {"figures/a-light.svg": (640, 480)}
    elsewhere = '<img src="../img/figures/sketch.svg" alt="x">'
    assert build_assets.with_sizes(elsewhere, sizes) == elsewhere
    with pytest.raises(PluginError, match="b-light.svg"):
        build_assets.with_sizes('<img src="figures/b-light.svg" alt="x">', sizes)


NOTEBOOK_PAGE = """<div id="cell-id=ab12cd34">x</div><!-- Load mathjax -->
<script src=""> </script>
<!-- MathJax configuration -->
<script type="text/x-mathjax-config">MathJax.Hub.Config({});</script>
<script type="module">const m = await import("https://cdnjs.cloudflare.com/m.mjs");</script>
<div id="cell-id=ffee0011">y</div><script type="module">keep()</script>
<div class="jp-Cell-inputWrapper" tabindex="0">
<div class="highlight-ipynb hl-python"><pre>x = 1</pre></div></div>
<div class="zeroclipboard-container">
<clipboard-copy ,="" aria-label="Copy to Clipboard" for="cell-1"></clipboard-copy>
<div class="clipboard-copy-txt" id="cell-1">x = 1</div></div>"""


def test_notebook_pages_lose_cdn_loaders_and_random_ids():
    cleaned = notebooks.clean_notebook_html(NOTEBOOK_PAGE)
    assert "cdnjs" not in cleaned and "mathjax" not in cleaned.lower()
    assert 'src=""' not in cleaned and "keep()" in cleaned
    assert 'id="nb-cell-1"' in cleaned and 'id="nb-cell-2"' in cleaned
    ids = re.findall(r'\bid="([^"]+)"', cleaned)
    assert len(ids) == len(set(ids)), ids  # copy buttons keep their own cell-N


def test_notebook_copy_buttons_have_only_real_attributes():
    """mkdocs-jupyter's comma between attributes, kept by its parser as an attribute
    named ",", is gone."""
    cleaned = notebooks.clean_notebook_html(NOTEBOOK_PAGE)
    button = BeautifulSoup(cleaned, "html.parser").find("clipboard-copy")
    assert button.attrs == {"for": "cell-1", "aria-label": "Copy to Clipboard"}


def test_notebook_code_cells_take_materials_colours():
    cleaned = notebooks.clean_notebook_html(NOTEBOOK_PAGE)
    listing = '<div class="highlight highlight-ipynb hl-python"><pre tabindex="0">'
    assert listing in cleaned
    assert cleaned.count('tabindex="0"') == 1  # the listing, not its cell, scrolls
    css = (
        ".highlight-ipynb .k { color: green }\n.jp-Cell { y: 2 }\n"
        ".jp-Dialog { z: 3 }\n.jp-Output { w: 4 }"
    )
    page = (
        "<head><style>.js .own { a: 1 }</style></head>"
        f'<body><style>{css}</style><p class="jp-Cell">body</p></body>'
    )
    html, taken = notebooks.styles_taken_out(page)
    assert html == (
        f"<head><style>.js .own {{ a: 1 }}</style>{notebooks.UNLINKED}</head>"
        '<body><p class="jp-Cell">body</p></body>'
    )
    other = f'</head><body><style>{css}</style><p class="jp-Output">o</p></body>'
    pages = [(html, taken), notebooks.styles_taken_out(other)]
    path, shipped = notebooks.shared_stylesheet(pages)
    site_css = notebooks.SITE_CSS.read_text(encoding="utf-8")
    assert shipped == (  # what either page uses: no syntax colours, no dialog
        ".jp-Cell{y: 2 }.jp-Output{w: 4 }\n" + site_css
    )
    assert notebooks.shared_stylesheet(pages[::-1])[1] == shipped  # CSS repeated
    assert path.startswith("assets/stylesheets/notebook.") and path.endswith(".css")
    link = f'<link rel="stylesheet" href="../../{path}">'
    assert notebooks.linked(html, "notebooks/a/", path) == html.replace(
        notebooks.UNLINKED, link
    )
    with pytest.raises(PluginError, match="notebooks/b/: the notebook stylesheet"):
        notebooks.linked("<head></head>", "notebooks/b/", path)
    with pytest.raises(PluginError, match="highlight-ipynb"):
        notebooks.styles_taken_out("</head><style>.jp-Cell {}</style>")


def test_notebook_ipynb_is_the_script_as_a_reproducible_notebook(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    script = tmp_path / "tour.py"
    script.write_text(
        "# ---\n# jupyter:\n#   description: A tour.\n#   kernelspec:\n"
        "#     display_name: Python 3\n#     language: python\n#     name: python3\n"
        "# ---\n\n# %% [markdown]\n# # Title\n\n# %%\nprint(6 * 7)\n"
    )
    first, second = notebooks.notebook_ipynb(script), notebooks.notebook_ipynb(script)
    assert first == second  # jupytext's random cell ids are gone
    notebook = nbformat.reads(first.decode(), as_version=4)
    nbformat.validate(notebook)
    assert [c.cell_type for c in notebook.cells] == ["markdown", "code"]
    code = notebook.cells[1]
    assert code.source == "print(6 * 7)" and code.outputs == []  # unexecuted
    assert notebook.metadata.kernelspec.name == "python3"
    assert notebook.metadata.description == "A tour."
    assert "jupytext" not in first.decode()
    assert notebooks.ipynb_path("notebooks/tour.py") == "notebooks/tour/tour.ipynb"


def test_tables_get_a_scroll_hint_and_nothing_else_changes():
    tables = load("tables")
    page = "<p>a</p><table>\n<tr><td>1</td></tr>\n</table><table class=x></table>"
    wrapped = tables.with_scroll_hints(page)
    assert wrapped == page.replace(
        "<table>\n<tr><td>1</td></tr>\n</table>",
        f'<div class="posenc-table">{tables.HINT}<div class="md-typeset__scrollwrap">'
        '<div class="md-typeset__table"><table tabindex="0">\n'
        "<tr><td>1</td></tr>\n</table></div></div></div>",
    )  # classed tables (notebook data frames) are left alone
    assert 'aria-hidden="true"' in tables.HINT and "data-search-exclude" in tables.HINT


def test_inline_code_in_a_table_may_break_between_the_parts_of_a_name_only():
    tables = load("tables")
    page = (
        "<p><code>a_b</code></p><table><tr><td><code>partial_rotary</code></td>"
        '<td><a href="x"><code>rope_type</code></a> <code>x</code></td>'
        "<td><code>learned.LearnedPositionalEmbedding</code></td>"
        "<td><code>0.1 ln(s) + 1</code> <code>HF.from_pretrained</code></td></tr>"
        "</table>"
    )
    wrapped = tables.with_scroll_hints(page)
    assert wrapped.startswith("<p><code>a_b</code></p>")  # outside tables: as is
    assert "<code>partial_<wbr>rotary</code>" in wrapped
    assert "<code>rope_<wbr>type</code></a> <code>x</code>" in wrapped
    assert "<code>learned.<wbr>Learned<wbr>Positional<wbr>Embedding</code>" in wrapped
    assert "<code>0.1 ln(s) + 1</code>" in wrapped  # no break inside a number
    assert "<code>HF.<wbr>from_<wbr>pretrained</code>" in wrapped  # not H / F


def test_notebook_cleaner_notices_when_mkdocs_jupyter_changes():
    with pytest.raises(PluginError, match="changed shape"):
        notebooks.clean_notebook_html("<div>no loaders here</div>")


def test_heading_permalinks_are_hidden_from_assistive_technology():
    page = (
        '<h2 id="r">The rotation<a class="headerlink" href="#r" title="Permanent'
        ' link">&para;</a></h2><h2 id="n">Cell<a class="anchor-link" href="#n">¶</a>'
        '</h2><h3 id="f"><code>f</code><a href="#f" class="headerlink">&para;</a>'
        '</h3><p><a class="headerlinks" href="#r">text</a></p>'
    )  # Python-Markdown's, JupyterLab's, mkdocstrings' (href first), another link
    hidden = accessible_names.without_permalink_names(page)
    assert hidden.count('<a aria-hidden="true" tabindex="-1" ') == 3
    assert '<a aria-hidden="true" tabindex="-1" href="#f" class="headerlink">' in hidden
    assert '<a class="headerlinks" href="#r">text</a>' in hidden  # other links stay
    assert hidden.replace('aria-hidden="true" tabindex="-1" ', "") == page


def test_navigation_sections_are_named_by_their_title():
    section = (
        '<nav class="md-nav" data-md-level="1" aria-labelledby="__nav_6_label"'
        ' aria-expanded="false">\n <label class="md-nav__title" for="__nav_6">\n'
        ' <span class="md-nav__icon md-icon"></span>\n Part III &#8212; today\n'
        " </label>\n <ul>"
    )  # Material's, with the label it names it by missing (only an icon, or none)
    other = "<nav aria-labelledby=x>"  # any other nav is left alone
    expected = section.replace(
        'aria-labelledby="__nav_6_label"', 'aria-label="Part III &#8212; today"'
    )
    assert accessible_names.with_section_names(section + other) == expected + other


def test_notebook_download_links_follow_the_title():
    page = '<div class="cell"><h1 id="t">08 Code<a href="#t">¶</a></h1><p>Intro</p>'
    linked = notebooks.with_downloads(page, "notebooks/four_methods.py")
    title, _, after = linked.partition("</h1>")
    assert title == page.partition("</h1>")[0]  # nothing before the title
    assert after.startswith('<p class="posenc-download">') and after.endswith(
        "<p>Intro</p>"
    )
    assert 'href="four_methods.ipynb" download' in after
    assert 'href="four_methods.py" download' in after
    with pytest.raises(PluginError, match="# title"):
        notebooks.with_downloads("<p>no title</p>", "notebooks/x.py")


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
    start = '<p>Let <span class="posenc-nobreak"><span class="arithmatex">'
    assert out.startswith(start + '<span class="katex">')  # the full stop joins it
    assert out.count("posenc-nobreak") == 1 and "</span>.</span></p>" in out


SUMS = " + ".join(f"a_{{{i}}}" for i in range(12))  # longer than NOBREAK_TEX


@pytest.mark.parametrize(
    ("page", "wrapped", "ending"),
    [  # a short inline formula and its punctuation; display math is a block
        ('<span class="arithmatex">\\(x^2\\)</span> and <span class="arithmatex">'
         '\\(\\sqrt{d}\\)</span>), then', 1, "</span>),</span> then"),
        ('<div class="arithmatex">\\[y\\]</div>.', 0, "</div>."),
        (f'<span class="arithmatex">\\({SUMS}\\)</span>, so', 0, "</span></span>, so"),
    ],
)  # fmt: skip
def test_only_punctuation_right_after_a_short_formula_joins_it(
    renderer, page, wrapped, ending
):
    assert len(SUMS) > katex.NOBREAK_TEX  # free to break inside: not wrapped
    out = katex.render_arithmatex(page, renderer, "x.md")
    assert out.count('class="posenc-nobreak"') == wrapped and out.endswith(ending)
    assert out.count('class="posenc-breakable"') == (SUMS in page)  # may break


def test_an_opening_bracket_joins_the_short_formula_after_it(renderer):
    """At 390 px pitfalls broke "23.7 (" / "j/d)": the bracket stays with it."""
    page = 'by 23.7 (<span class="arithmatex">\\(j/d\\)</span>) or'
    out = katex.render_arithmatex(page, renderer, "x.md")
    assert out.startswith('by 23.7 <span class="posenc-nobreak">(<span class=')
    assert out.endswith("</span>)</span> or")
    page = 'is <span class="arithmatex">\\(s\\)</span> = 93.06: so'
    out = katex.render_arithmatex(page, renderer, "x.md")
    assert out.startswith('is <span class="posenc-nobreak"><span class="arithmatex">')
    assert out.endswith("</span> = 93.06:</span> so")  # "= 93.06" not alone
    cell = '<div class="jp-MarkdownOutput">at [$i$] and ($x$ alone</div>'
    out = katex.render_notebook_cells(cell, renderer, "notebooks/n.py")
    assert out.count('class="posenc-nobreak"') == 2 and "at <span" in out


def test_notebook_formulas_keep_their_punctuation_too(renderer):
    cell = '<div class="jp-MarkdownOutput">Width $\\sqrt{d}$; not $x$ alone</div>'
    out = katex.render_notebook_cells(cell, renderer, "notebooks/n.py")
    assert out.count('class="posenc-nobreak"') == 1 and "</span>;</span> not" in out


katex_fonts = load("katex_fonts")
KATEX_CSS = ROOT / "node_modules" / "katex" / "dist" / "katex.min.css"


@pytest.fixture(scope="module")
def stylesheet():
    return katex_fonts.Stylesheet(KATEX_CSS.read_text())


@pytest.mark.parametrize(
    ("tex", "display", "fonts"),
    [  # the faces of the text, KaTeX's font documentation; MathML copy skipped
        ("x", False, ["KaTeX_Math-Italic"]),
        ("2", False, []),
        ("\\mathbb{R}", False, ["KaTeX_AMS-Regular"]),
        ("\\mathcal{L}", False, ["KaTeX_Caligraphic-Regular"]),
        ("\\mathbf{x}", False, ["KaTeX_Main-Bold"]),
        ("\\boldsymbol{x}", False, ["KaTeX_Math-BoldItalic"]),
        ("\\textit{word}", False, ["KaTeX_Main-Italic"]),
        ("\\texttt{a}", False, ["KaTeX_Typewriter-Regular"]),
        ("\\Bigg(", False, ["KaTeX_Size4-Regular"]),
    ],
)  # fmt: skip
def test_the_fonts_of_katex_html_follow_katex_stylesheet(
    renderer, stylesheet, tex, display, fonts
):
    """Each formula's own box is KaTeX_Main: the browser fetches it to measure the
    line even where no text is set in it (a review, in Chromium: x alone)."""
    page = f"<p>{renderer.render([(tex, display)], 'x.md')[0]}</p>"
    expected = sorted({"KaTeX_Main-Regular", *fonts})
    assert katex_fonts.fonts_used(page, stylesheet) == expected


def test_a_sum_is_set_large_in_display_and_small_inline(renderer, stylesheet):
    """KaTeX's large operators: Size2 in display style, Size1 in text style."""
    shown, inline = renderer.render([("\\sum_i", True), ("\\sum_i", False)], "x.md")
    assert {"KaTeX_Size2-Regular"} == set(
        katex_fonts.fonts_used(shown, stylesheet)
    ) - set(katex_fonts.fonts_used(inline, stylesheet))
    assert "KaTeX_Size1-Regular" in katex_fonts.fonts_used(inline, stylesheet)
    assert katex_fonts.fonts_used("<p>no math</p>", stylesheet) == []


def test_math_a_closed_details_hides_is_not_counted(renderer, stylesheet):
    """The browser lays out no closed <details> but its summary: fonts only its
    hidden math uses would be preloaded and not used (a review, in Chromium)."""
    (cal,) = renderer.render([("\\mathcal{L}", False)], "x.md")

    def fonts(page):
        return "KaTeX_Caligraphic-Regular" in katex_fonts.fonts_used(page, stylesheet)

    closed = '<details class="note"><summary>{}</summary><p>{}</p></details>'
    assert not fonts(closed.format("Note", cal))
    assert fonts(closed.format(cal, "text"))  # its summary shows
    assert fonts(closed.replace('"note"', '"note" open').format("Note", cal))
    shown = closed.replace('class="note"', "open")  # an open one inside a closed one
    nested = closed.format("Outer", shown.format("In", cal))
    assert not fonts(nested) and fonts(f"{nested}<p>{cal}</p>")
    assert fonts(shown.format("Outer", closed.format(cal, "text")))  # the other way


@pytest.mark.parametrize(
    "css",
    [
        ".katex .a:not(.b){font-family:KaTeX_AMS}",
        ".katex [dir] .a{font-style:italic}",
        ".katex .a::before{font-family:KaTeX_AMS}",
        "@media print{.katex .a{font-family:KaTeX_AMS}}",
        ".katex{font:700 1.21em KaTeX_Main,serif}",
        ".katex .a{font-family:KaTeX_AMS !important}",
        ".katex .a{font-family:inherit}",
        ".katex .a{font-family:KaTeX_Nowhere}",
        ".katex .a{font-weight:600}",
    ],
)
def test_font_rules_this_cannot_read_stop_the_build(css):
    """A new KaTeX whose font rules use other CSS fails loudly, not by preloading
    the wrong fonts (a review: each of these was read as something else)."""
    with pytest.raises(ValueError, match="KaTeX's CSS"):
        katex_fonts.Stylesheet(css)


def test_a_rule_with_more_classes_wins_over_one_with_more_tags():
    faces = "".join(
        f"@font-face{{font-family:{f};font-style:normal;font-weight:400;"
        f"src:url(fonts/{f}-Regular.woff2)}}"
        for f in ("KaTeX_X", "KaTeX_Y", "KaTeX_Z")
    )
    css = faces + '.katex{font:normal 1em "KaTeX_Z",serif}'  # a quoted family
    css += ".katex .a .b{font-family:KaTeX_Y}.katex span span{font-family:KaTeX_X}"
    html = '<span class="katex"><span class="a"><span class="b">t</span></span></span>'
    stylesheet = katex_fonts.Stylesheet(css)
    expected = ["KaTeX_Y-Regular", "KaTeX_Z-Regular"]
    assert katex_fonts.fonts_used(html, stylesheet) == expected


def test_a_page_preloads_its_fonts_relative_to_its_folder():
    page = "<html><head><title>t</title></head><body></body></html>"
    out = katex.with_font_preloads(
        page, "part1/worked-example/", ["KaTeX_Size2-Regular"]
    )
    link = (
        '<link rel="preload" as="font" type="font/woff2" crossorigin '
        'href="../../assets/katex/fonts/KaTeX_Size2-Regular.woff2"></head>'
    )
    assert out.endswith(link + "<body></body></html>")


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


def test_search_text_loses_tex_roles_prompts_and_listings():
    search_index = load("search_index")
    text = (
        r"<p>Angle \(m\theta_i\) and $$\frac{1}{\alpha}$$; see :func:<code>rope</code>"
        r" and :py:class:<code>Rotary</code>.</p> In [3]: <pre>x = 1</pre>"
    )
    cleaned = search_index.clean_text(text)
    expected = "<p>Angle mθi and 1α; see <code>rope</code> and <code>Rotary</code>.</p>"
    assert cleaned.strip() == expected


def test_search_entries_are_remembered_by_what_they_are_made_of():
    import markdown
    from material.plugins.search.plugin import SearchIndex
    from mkdocs.structure.toc import get_toc

    search_index = load("search_index")
    search_index.on_config(None)
    search_index.on_config(None)  # serve: the next build wraps Material's, once
    material = SearchIndex.add_entry_from_context.__wrapped__
    assert not hasattr(material, "__wrapped__")
    parsed = []

    def add_entry(index, page):  # Material's, counting the pages it parses
        parsed.append(page.url)
        return material(index, page)

    def page(text, url="p/"):
        md = markdown.Markdown(extensions=["toc"])
        content = md.convert(text)
        toc = get_toc(md.toc_tokens)
        return SimpleNamespace(url=url, title="P", meta={}, content=content, toc=toc)

    def entries(add, *pages):
        index = SearchIndex(lang=["en"], separator=" ")
        for p in pages:
            add(index, p)
        return index.entries

    first, edited = page("# A\n\nOne.\n\n## B\n\nTwo.\n"), page("# A\n\nOne!\n")
    fresh = entries(material, first)
    before, now = {}, {}
    add = search_index.remembered(add_entry, before, now)
    assert entries(add, first) == fresh and len(fresh) == 2
    assert entries(add, first, page("# A\n\nOne.\n\n## B\n\nTwo.\n")) == fresh * 2
    assert parsed == ["p/"]  # the same page again: not parsed again
    assert entries(add, edited) == entries(material, edited) != fresh
    assert parsed == ["p/", "p/"]
    moved = page("# A\n\nOne!\n", url="q/")
    assert entries(add, moved) == entries(material, moved) != entries(add, edited)
    later = search_index.remembered(add_entry, now, {})  # the next build
    assert entries(later, first) == fresh and len(parsed) == 3


def test_notebooks_execute_in_the_background_and_their_pages_wait():
    import threading
    from concurrent.futures import Future

    notebooks = load("notebooks")
    rendered = []

    class Jupyter:  # mkdocs-jupyter's part: its on_pre_page sets the page's render
        def on_pre_page(self, page, config, files):
            name = threading.current_thread().name
            page.render = lambda config, files: rendered.append((page.file, name))

    files = [SimpleNamespace(src_uri=f"notebooks/{n}.py") for n in "ab"]
    ahead = notebooks.execute_ahead(Jupyter(), files, None, None)
    assert [ahead[f.src_uri].result() for f in files] == [None, None]
    assert [file for file, _ in rendered] == files  # in page order
    names = {name for _, name in rendered}  # one thread, not this one
    assert len(names) == 1 and threading.current_thread().name not in names
    executed, failed = Future(), Future()
    notebooks._ahead.update({"notebooks/a.py": executed, "notebooks/b.py": failed})
    shown = lambda config, files: rendered.append("shown")  # noqa: E731
    pages = [SimpleNamespace(file=file, render=shown) for file in files]
    for page in pages:
        assert notebooks.on_pre_page(page, None, None) is page
    rendered.clear()
    waiting = threading.Thread(target=pages[0].render, args=(None, None))
    waiting.start()
    waiting.join(0.2)
    assert waiting.is_alive() and rendered == []  # its notebook is still executing
    executed.set_result(None)
    waiting.join(5)
    assert rendered == ["shown"]
    failed.set_exception(RuntimeError("cell 3 raised"))
    with pytest.raises(RuntimeError, match="cell 3"):
        pages[1].render(None, None)
    assert notebooks._ahead == {}
    other = SimpleNamespace(file=SimpleNamespace(src_uri="part1/index.md"))
    assert notebooks.on_pre_page(other, None, None) is other


def test_templates_compile_once_per_process_and_again_when_edited(monkeypatch):
    from jinja2 import DictLoader, Environment

    templates = load("templates")
    cache = templates.MemoryBytecodeCache()

    def env(source):
        return Environment(loader=DictLoader({"t.html": source}), bytecode_cache=cache)

    assert env("{{ x }}!").get_template("t.html").render(x=1) == "1!"
    assert len(cache.compiled) == 1
    again = env("{{ x }}!")  # the next build's environment
    monkeypatch.setattr(again, "compile", lambda *a, **k: pytest.fail("compiled"))
    assert again.get_template("t.html").render(x=2) == "2!"
    assert env("{{ x }}?").get_template("t.html").render(x=3) == "3?"  # edited
    theme = Environment()
    assert templates.on_env(theme, None, None) is theme
    assert theme.bytecode_cache is templates.CACHES["theme"]


def test_the_wheel_builds_while_the_pages_do(monkeypatch):
    import threading

    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    wheel = load("wheel")
    release, built_on = threading.Event(), []

    def slow_build(project_dir, cache_dir):
        built_on.append(threading.current_thread())
        assert release.wait(5)
        return {wheel.WHEEL_PATH: b"PK wheel bytes"}

    monkeypatch.setattr(wheel, "wheel_files", slow_build)
    config = load_config(str(ROOT / "mkdocs.yml"))
    config.plugins._current_plugin = "hooks/wheel.py"  # as MkDocs sets it for a hook
    files = wheel.on_files(Files([]), config)  # returns with the build still going
    (file,) = [f for f in files if f.src_uri == wheel.WHEEL_PATH]
    assert file.content_bytes == b"" and built_on != [threading.current_thread()]
    release.set()
    wheel.on_env(None, config, files)
    assert file.content_bytes == b"PK wheel bytes"
    monkeypatch.setattr(wheel, "wheel_files", lambda *_: 1 / 0)
    wheel.on_files(Files([]), config)
    wheel.on_build_error(None)  # waits for the failed build, raises nothing
    assert wheel._building == []


def test_notebook_pages_build_after_the_others():
    from mkdocs.structure.files import File, Files

    def page(uri):
        return File(uri, "docs", "site", use_directory_urls=True)

    pages = [page(uri) for uri in ("a.md", "notebooks/x.py", "b.md", "notebooks/y.py")]
    ordered = notebooks.pages_last(Files(pages), [pages[1], pages[3]])
    assert [f.src_uri for f in ordered] == [
        "a.md",
        "b.md",
        "notebooks/x.py",
        "notebooks/y.py",
    ]


class _Listings(html.parser.HTMLParser):
    """Each `<pre>`'s text, the text outside them, and the classes of pre spans."""

    def __init__(self, page: str):
        super().__init__(convert_charrefs=True)
        self.inside, self.listings, self.outside, self.span_classes = 0, [], [], []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        if tag == "pre":
            self.inside += 1
            self.listings.append("")
        elif tag == "span" and self.inside:
            self.span_classes.append(dict(attrs).get("class"))

    def handle_endtag(self, tag):
        self.inside -= tag == "pre"

    def handle_data(self, data):
        if self.inside:
            self.listings[-1] += data
        else:
            self.outside.append(data)


def highlighted(source: str) -> str:
    """`source` as the site's Markdown makes a Python listing, with a name outside."""
    fence = f"```python\n{source}\n```"
    body = markdown.markdown(fence, extensions=["pymdownx.superfences"])
    return f'<p><span class="n">x</span> and <code>y</code></p>{body}'


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="abxy_ 01.,()[]=+-*/'\"#<>&;:\n\t\\", max_size=80))
def test_listings_keep_their_text_and_lose_only_unstyled_spans(source):
    listings = load("listings")
    page = highlighted(source)
    before, after = _Listings(page), _Listings(listings.without_plain_tokens(page))
    assert after.listings == before.listings  # what a reader sees and copies
    assert after.outside == before.outside
    assert after.span_classes == [
        c for c in before.span_classes if c not in ("n", "w", None)
    ]
    assert '<span class="n">x</span>' in listings.without_plain_tokens(page)


def test_listing_file_names_may_break_after_each_slash():
    listings = load("listings")
    page = (
        '<span class="filename">posenc_docs/examples/x.py</span>'
        '<pre><code>a/b</code></pre><span class="filenames">c/d</span>'
    )
    assert listings.breakable_file_names(page) == (
        '<span class="filename">posenc_docs/<wbr>examples/<wbr>x.py</span>'
        '<pre><code>a/b</code></pre><span class="filenames">c/d</span>'
    )


def test_listings_unwrap_names_whitespace_and_empty_spans_in_real_code():
    listings = load("listings")
    source = (ROOT / "posenc_docs" / "rope.py").read_text(encoding="utf-8")
    page = highlighted(source)
    before = _Listings(page).span_classes
    after = _Listings(listings.without_plain_tokens(page)).span_classes
    assert before.count("n") > 500 and before.count("w") > 50 and None in before
    assert len(after) < 0.75 * len(before)  # a quarter of the elements, at least


def _printed(text: str) -> str:
    return f'<div class="language-text highlight"><pre><code>{text}</code></pre></div>'


@pytest.mark.parametrize(
    ("text", "aligned"),
    [
        ("pair 1:        6.51\npair 255:   60,611\n", True),  # columns
        ("a  b\n", False),  # one padded line is not a table
        ("The slowest pair turns 0.07 times.\nIt never wraps.\n", False),  # prose
        ('x &amp;  y\n<span class="n">z</span>   1\n', True),  # escaped, spans
    ],
)
def test_printed_output_in_columns_is_marked_to_scroll_not_wrap(text, aligned):
    """A listing's output and a notebook cell's (JupyterLab wraps it: on a phone
    numpy's arrays and padded tables broke into ragged lines)."""
    listings = load("listings")
    cell = (
        '<div class="jp-RenderedText jp-OutputArea-output" data-mime-type='
        f'"text/plain" tabindex="0">\n<pre>{text}</pre>\n</div>'
    )
    for output in (_printed(text), cell):
        page = f"<p>a  b</p>{output}{_printed('plain')}"
        marked = listings.aligned_outputs(page)
        assert marked.count("posenc-aligned") == int(aligned)
        assert marked.replace(" posenc-aligned", "") == page  # nothing else changes


NOBREAK = '<span class="posenc-nobreak">{}</span>'


def test_names_with_numbers_lists_assignments_and_api_names_break_well():
    """The 390 px review: "GPT-" / "2", "(Figure" / "2)", "(1," / "−5)", "1,024 ×
    768" / "= 786,432" (a newline in the source), "low" / "&gt;= 0", inline code
    "dim" / "= int(...)" and the API heading "t5_relative_position_bucket_torc" /
    "h" (it may break after an underscore instead)."""
    typography = load("typography")
    name = '<span class="doc doc-object-name doc-function-name">'
    body = (
        "<p>GPT-2 and Llama 3.1 (Figure 2) at (1, −5) or [0, 1, 2, 8]; GPT-2 spends"
        " 1,024 × 768\n= 786,432 and low &gt;= 0</p>"
        "<p><code>dim = int(head_dim * partial_rotary_factor)</code></p>"
        f"<h2>{name}t5_relative_position_bucket_torch</span></h2>{name}apply_rope</span>"
    )
    out = typography.with_phrases_kept_whole(body)
    kept = re.findall(r'<span class="posenc-nobreak">(.*?)</span>', out, re.DOTALL)
    assert kept == [
        "GPT-2", "Llama 3.1", "Figure 2", "(1, −5)", "[0, 1, 2, 8]", "GPT-2",
        "1,024 × 768\n= 786,432", "low &gt;= 0", "dim =",
    ]  # fmt: skip
    assert "</span> int(<wbr>head_dim * partial_rotary_factor)</code>" in out
    assert f"{name}t5_<wbr>relative_<wbr>position_<wbr>bucket_<wbr>torch<" in out
    assert f"{name}apply_rope</span>" in out  # short: whole
    cases = [
        ("Llama 3 × 2 layers", "Llama 3 × 2"),  # not "Llama 3" alone
        ("shape (2, 8) + 1", "(2, 8) + 1"),
        ("weights: (B, H, T, T) = (2, 4, 8, 8)", "(B, H, T, T) = (2, 4, 8, 8)"),
        ("q of shape (B, H, T, d) and", "(B, H, T, d)"),
        ("(n_positions, rotary_dim)", None),  # words, not short items: may break
        ("[-0.8415, 0.5403] and", "[-0.8415, 0.5403]"),
        ("x[:8] = [1, 1, 1, 0, 1, 1, 1, 0, 1, 1]", "x[:8] = [1,"),  # too long whole
    ]
    for text, phrase in cases:
        kept = typography.kept_whole(text)
        assert kept.count(NOBREAK.format(phrase)) == 1 if phrase else kept == text
    long_name = "<code>model.layers[0].self_attn.rotary_emb.inv_freq = x</code>"
    assert "nobreak" not in typography.with_phrases_kept_whole(long_name)  # too wide
    listings = load("listings")
    output = listings.aligned_outputs(_printed("L0 = 4,096 and s\n"))
    assert '<span class="posenc-nobreak">L0 = 4,096</span>' in output


def test_navigation_sections_are_named_before_their_titles_get_nobreak_spans():
    """accessible_names reads a section's title as plain text: a nobreak span that
    typography put around "Part 2" would leave the section unnamed."""
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    order = [Path(hook).stem for hook in config["hooks"]]
    assert order.index("accessible_names") < order.index("typography"), order
    names, typography = load("accessible_names"), load("typography")
    nav = (
        '<nav class="md-nav" data-md-level="1" aria-labelledby="x" aria-expanded='
        '"false">\n<label class="md-nav__title" for="x">\n<span class="md-nav__icon'
        ' md-icon"></span>\nPart 2\n</label>'
    )
    assert 'aria-label="Part 2"' in typography.with_phrases_kept_whole(
        names.with_section_names(nav)
    )


def test_a_number_in_wrapping_output_or_prose_is_kept_whole():
    """Chromium broke "2e-16" after its "-" at 390 px (prose on failure-modes and
    part3/base, a notebook's output): it goes into a nobreak span, and only it."""
    listings, typography = load("listings"), load("typography")
    text = "gap 2.4e-16 and 1e+3, not v2e+1 or 1.5e+3x\n"  # "v2e-1": a name
    out = listings.aligned_outputs(_printed(text))
    kept = re.findall(r'<span class="posenc-nobreak">(.*?)</span>', out)
    assert kept == ["2.4e-16", "1e+3"]
    assert re.sub(r"</?span[^>]*>", "", out) == _printed(text)
    prose = typography.with_phrases_kept_whole(f"<p>is {text}</p><pre>2e-16</pre>")
    assert re.findall(r'<span class="posenc-nobreak">(.*?)</span>', prose) == kept


def test_unwrapped_token_spans_have_no_colour_of_their_own():
    """Material gives `.n` the name colour, which is the listing's own colour in
    both schemes, and styles no `.w`: if it ever does, unwrapping would show."""
    css = "".join(
        path.read_text(encoding="utf-8")
        for path in (Path(material.__file__).parent / "templates").rglob("*.css")
    )
    rules = re.findall(r"([^{}]*)\{([^}]*)\}", css)
    styling = [body for sel, body in rules if re.search(r"\.[nw](?![\w-])", sel)]
    assert styling == ["color:var(--md-code-hl-name-color)"]
    names = re.findall(r"--md-code-hl-name-color:([^;}]*)", css)
    assert names and set(names) == {"var(--md-code-fg-color)"}


@pytest.mark.parametrize(
    "asset, patch, patches",
    [
        ("javascripts/bundle.*.js", "patched_bundle", "PATCHES"),
        ("stylesheets/main.*.css", "patched_stylesheet", "STYLESHEET_PATCHES"),
    ],
)
def test_materials_assets_are_patched_once_per_expression_or_the_build_stops(
    asset, patch, patches
):
    material_bundle = load("material_bundle")
    assets = Path(material.__file__).parent / "templates" / "assets"
    (original,) = assets.glob(asset)
    patch, patches = getattr(material_bundle, patch), getattr(material_bundle, patches)
    patched = patch(original.read_text(encoding="utf-8"))
    for expression, replacement, *times in patches.values():
        assert expression not in patched
        assert patched.count(replacement) == (times[0] if times else 1)
    with pytest.raises(PluginError, match="update hooks/material_bundle.py"):
        patch(patched)  # a file without the expressions


def test_materials_bundle_tag_becomes_a_preload_and_a_loader_or_the_build_stops():
    """Each page's one tag of Material's bundle (its URL relative to the page, as
    Material writes it) becomes a script that adds it after the first frame, and the
    head a script that preloads it (JavaScript only); no tag, two, or no charset
    meta to put the preload after stop the build."""
    material_bundle = load("material_bundle")
    src = "../../assets/javascripts/bundle.a5f9d56c.min.js"
    tag = f'<script src="{src}"></script>'
    head = '<head><meta charset="utf-8"><title>t</title></head>'
    page = f"{head}<body><p>text</p>\n{tag}\n<script src=x.js></script></body>"
    out = material_bundle.bundle_after_first_paint(page)
    assert tag not in out and out.count(src) == 2
    preload, loader = out.index('preload.href = "'), out.index('bundle.src = "')
    assert out.index("<title>") > preload and loader > out.index("<p>text</p>")
    assert "<link" not in out  # a reader without JavaScript fetches nothing
    assert out.endswith("</script>\n<script src=x.js></script></body>")
    for wrong in (
        page.replace(tag, ""),
        page.replace(tag, tag * 2),
        page.replace('<meta charset="utf-8">', ""),
    ):
        with pytest.raises(PluginError, match="update hooks/material_bundle.py"):
            material_bundle.bundle_after_first_paint(wrong)


def test_a_script_that_may_not_wait_for_materials_bundle_stops_the_build():
    """Material's document$ exists only once its bundle has run, now after the
    first paint: a script of extra_javascript not known to wait for it stops the
    build, naming it; the site's own passes."""
    from mkdocs.config import load_config

    material_bundle = load("material_bundle")
    config = load_config(str(ROOT / "mkdocs.yml"))
    assert material_bundle.on_config(config) is config
    config.extra_javascript.append("javascripts/mathjax.js")
    with pytest.raises(PluginError, match="'javascripts/mathjax.js'.*posenc:material"):
        material_bundle.on_config(config)


def test_a_listing_is_highlighted_once_per_process_under_its_settings(monkeypatch):
    """hooks/highlight_memo.py: the same source, language, arguments and settings
    give the same HTML from one Pygments call; another source, argument or setting
    is highlighted anew; HTML titles, which go into the page's stash, every time."""
    import markdown
    import pymdownx.highlight

    memo = load("highlight_memo")
    calls = []
    pygments_highlight = pymdownx.highlight.highlight
    monkeypatch.setattr(
        pymdownx.highlight,
        "highlight",
        lambda *a, **k: calls.append(a[0]) or pygments_highlight(*a, **k),
    )
    plain = pymdownx.highlight.Highlight.highlight
    once = memo.memoized(plain)

    def highlighter(**settings):
        return pymdownx.highlight.Highlight(markdown.Markdown(), **settings)

    src = "def f(x):\n    return x + 1\n"
    classes = highlighter(pygments_lang_class=True)
    expected = plain(classes, src, "python", linestart=1)
    assert len(calls) == 1
    assert once(classes, src, "python", linestart=1) == expected
    assert once(classes, src, "python", linestart=1) == expected
    assert once(highlighter(pygments_lang_class=True), src, "python", linestart=1) == (
        expected  # another highlighter, the same settings
    )
    assert len(calls) == 2  # one for the plain call, one for the memo
    other = once(classes, src.replace("1", "2"), "python", linestart=1)
    numbered = once(classes, src, "python", linestart=3)
    unclassed = once(highlighter(), src, "python", linestart=1)
    assert len(calls) == 5 and len({expected, other, numbered, unclassed}) == 4
    html_titles = highlighter(title_mode="html")
    titled = [once(html_titles, src, "python", title="<b>f</b>") for _ in range(2)]
    assert len(calls) == 7 and titled[0] != titled[1]  # two stash placeholders


def test_the_search_index_is_written_as_utf8_whatever_the_locale(tmp_path):
    """Greek letters and dashes survive a build under an ASCII locale (LC_ALL=C):
    the index was written in the locale's encoding, which failed half-way there
    and left an empty file for the next build to choke on."""
    import json
    import os
    import subprocess

    index = tmp_path / "search" / "search_index.json"
    index.parent.mkdir()
    docs = [{"location": "p/", "title": "θ", "text": "θ_i — the pair's angle"}]
    index.write_text(json.dumps({"docs": docs}), encoding="utf-8")
    script = (
        "import sys; from types import SimpleNamespace; "
        f"sys.path.insert(0, {str(ROOT / 'hooks')!r}); import search_index; "
        f"search_index.on_post_build(SimpleNamespace(site_dir={str(tmp_path)!r}))"
    )
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True)
    assert run.returncode == 0, run.stderr.decode()[-500:]
    (doc,) = json.loads(index.read_text(encoding="utf-8"))["docs"]
    assert "θ" in doc["text"] and "—" in doc["text"]


def serve_project(root: Path) -> dict[str, str]:
    """A small site that converts like the real one: snippets from the package,
    markdown-exec outputs with headings, autorefs cross-references, a checked link."""
    pages = {
        "docs/index.md": '# Home\n\n## Shared heading\n\n--8<-- "posenc_docs/x.py:a"\n',
        "docs/ran.md": '# Ran\n\n```python exec="on"\nprint("## Printed")\n```\n',
        "docs/refs.md": "# Refs\n\nSee [Shared heading][shared-heading].\n\n"
        '```python exec="on"\nprint("## Later")\n```\n',
    }
    write_files(root, {
        **pages,
        "posenc_docs/x.py": "# --8<-- [start:a]\nA = 1\n# --8<-- [end:a]\n",
        "mkdocs.yml": "site_name: t\nnav: [index.md, ran.md, refs.md]\n"
        f"hooks: [{ROOT / 'hooks' / 'render_memo.py'}]\n"
        "plugins: [autorefs, markdown-exec]\n"
        "markdown_extensions:\n  - pymdownx.superfences\n  - pymdownx.snippets:\n"
        "      base_path: ['.']\n      check_paths: true\n",
    })  # fmt: skip
    return pages


def write_files(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


class ServeSession:
    """Builds of one project in this process, as ``mkdocs serve`` makes them;
    which pages' Markdown each build converted, and the pages it wrote."""

    def __init__(self, root: Path, monkeypatch):
        from mkdocs.structure.pages import Page

        render = getattr(Page.render, "__wrapped__", Page.render)  # no memo yet
        monkeypatch.setattr(Page, "render", render)  # and none after the test
        self.root, self.converted = root, []
        original = markdown.Markdown.convert

        def convert(md, source):
            self.converted.append(source.splitlines()[0])  # each page's title
            return original(md, source)

        monkeypatch.setattr(markdown.Markdown, "convert", convert)
        monkeypatch.chdir(root)  # markdown-exec and snippets read from here
        monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")  # the theme's build date
        self.started = False

    def build(self, site: str = "site") -> dict[str, str]:
        from mkdocs.commands.build import build
        from mkdocs.config import load_config

        config = load_config(str(self.root / "mkdocs.yml"), site_dir=site)
        if not self.started:
            config.plugins.on_startup(command="serve", dirty=False)
            self.started = True
        self.converted.clear()
        build(config)
        pages = (self.root / site).rglob("index.html")
        return {p.parent.name if p.parent.name != site else "": p.read_text()
                for p in pages}  # fmt: skip


def test_serve_rebuilds_convert_only_the_pages_whose_inputs_changed(
    tmp_path, monkeypatch
):
    """hooks/render_memo.py: a second build converts no page and writes the same
    bytes; an edited page is converted alone, a package edit converts the pages
    that may include it; every build's pages are a fresh build's. Cross-references
    to a kept page resolve, and markdown-exec's output ids keep counting."""
    pages = serve_project(tmp_path)
    session = ServeSession(tmp_path, monkeypatch)
    first = session.build()
    assert sorted(session.converted) == ["# Home", "# Ran", "# Refs", "## Later",
                                         "## Printed"]  # fmt: skip
    assert 'href="../#shared-heading"' in first["refs"]  # autorefs resolved it
    assert 'id="exec-2--later"' in first["refs"]  # the second output converted
    assert session.build() == first and session.converted == []
    write_files(tmp_path, {"docs/refs.md": pages["docs/refs.md"] + "\nMore.\n"})
    edited = session.build()
    assert session.converted == ["# Refs", "## Later"]
    assert edited["refs"] != first["refs"] and "More." in edited["refs"]
    assert 'href="../#shared-heading"' in edited["refs"]  # the anchor was replayed
    assert 'id="exec-2--later"' in edited["refs"]  # Ran's output still counted
    ran = pages["docs/ran.md"] + '\n```python exec="on"\nprint("## Two")\n```\n'
    write_files(tmp_path, {"docs/ran.md": ran})  # one output more before Refs'
    assert 'id="exec-3--later"' in session.build()["refs"]
    assert "# Refs" in session.converted  # its ids count on from Ran's outputs
    write_files(tmp_path, {"posenc_docs/x.py": "# --8<-- [start:a]\nA = 2\n"
                                               "# --8<-- [end:a]\n"})  # fmt: skip
    changed = session.build()
    assert session.converted == ["# Home"] and "A = 2" in changed[""]
    assert changed == ServeSession(tmp_path, monkeypatch).build("fresh")
    write_files(tmp_path, {"docs/new.md": "# New\n"})  # links may resolve anew
    session.build()
    assert sorted(session.converted)[:4] == ["# Home", "# New", "# Ran", "# Refs"]


def test_a_package_edit_converts_again_only_the_pages_that_may_read_it(
    tmp_path, monkeypatch
):
    """hooks/render_memo.py: a page depends on the files it includes snippets of,
    on the modules they import (transitively, with their packages' __init__) and
    on the modules its own import lines name; not on the rest of the package."""
    write_files(tmp_path, {
        "docs/index.md": '# Home\n\n--8<-- "posenc_docs/x.py:a"\n',
        "docs/shown.md": "# Shown\n\n```python\nfrom posenc_docs.z import C\n```\n",
        "docs/prose.md": "# Prose\n\nimport the weights, then run it.\n",
        "posenc_docs/__init__.py": "",
        "posenc_docs/x.py": "from posenc_docs import y\n"
        "# --8<-- [start:a]\nA = y.B\n# --8<-- [end:a]\n",
        "posenc_docs/y.py": "from . import w\nB = 1\n",
        "posenc_docs/w.py": "",
        "posenc_docs/z.py": "C = 1\n",
        "posenc_docs/unused.py": "D = 1\n",
        "mkdocs.yml": "site_name: t\nnav: [index.md, shown.md, prose.md]\n"
        f"hooks: [{ROOT / 'hooks' / 'render_memo.py'}]\n"
        "markdown_extensions:\n  - pymdownx.superfences\n  - pymdownx.snippets:\n"
        "      base_path: ['.']\n      check_paths: true\n",
    })  # fmt: skip
    session = ServeSession(tmp_path, monkeypatch)
    session.build()
    assert sorted(session.converted) == ["# Home", "# Prose", "# Shown"]
    for edited, converted in [
        ("w.py", ["# Home"]),  # x imports y, which imports w
        ("z.py", ["# Shown"]),
        ("unused.py", []),
        ("__init__.py", ["# Home", "# Shown"]),
    ]:
        module = tmp_path / "posenc_docs" / edited
        module.write_text(module.read_text() + "# edited\n")
        session.build()
        assert sorted(session.converted) == converted, edited


def test_an_api_page_is_converted_again_only_when_its_module_may_change_it(
    tmp_path, monkeypatch
):
    """hooks/render_memo.py with mkdocstrings: a kept API page is replayed with its
    anchors (a link to it resolves) and its objects.inv items; it is converted
    again when its module or a module it imports changes, not otherwise; every
    build writes what a fresh build writes."""
    write_files(tmp_path, {
        "docs/index.md": "# Home\n\nSee [f][posenc_docs.x.f].\n",
        "docs/x.md": "# X\n\n::: posenc_docs.x\n",
        "docs/y.md": "# Y\n\n::: posenc_docs.y\n",
        "posenc_docs/__init__.py": "",
        "posenc_docs/x.py": '"""X."""\n\nfrom posenc_docs import y\n\n\n'
        'def f():\n    """F, then [g][posenc_docs.y.g]."""\n',
        "posenc_docs/y.py": '"""Y."""\n\n\ndef g():\n    """G."""\n',
        "posenc_docs/z.py": '"""Z."""\n',
        "mkdocs.yml": "site_name: t\nnav: [index.md, x.md, y.md]\n"
        f"hooks: [{ROOT / 'hooks' / 'render_memo.py'}]\n"
        "plugins:\n  - autorefs\n  - mkdocstrings:\n      handlers:\n"
        "        python:\n          paths: [.]\n",
    })  # fmt: skip
    session = ServeSession(tmp_path, monkeypatch)

    def built(site="site"):
        pages = session.build(site)
        return pages, (tmp_path / site / "objects.inv").read_bytes()

    first = built()
    assert 'href="x/#posenc_docs.x.f"' in first[0][""]
    assert b"posenc_docs.y.g" in zlib.decompress(first[1].split(b"\n", 4)[4])
    assert built() == first and session.converted == []
    write_files(tmp_path, {"posenc_docs/z.py": '"""Z, edited."""\n'})
    assert built() == first and session.converted == []  # nothing reads z
    write_files(
        tmp_path, {"posenc_docs/y.py": '"""Y."""\n\n\ndef g():\n    """G2."""\n'}
    )
    edited = built()
    pages = sorted(c for c in session.converted if c.startswith("# "))  # docstrings
    assert pages == ["# X", "# Y"]  # x imports y
    assert "G2." in edited[0]["y"] and edited[0][""] == first[0][""]
    session = ServeSession(tmp_path, monkeypatch)  # a fresh process's build
    assert built("fresh") == edited


def test_serve_converts_a_page_that_logs_on_every_build(tmp_path, monkeypatch):
    """A conversion that warns (a link to a missing page) is not kept: the
    warning shows on every rebuild."""
    write_files(tmp_path, {
        "docs/index.md": "# Home\n\n[gone](gone.md)\n",
        "mkdocs.yml": "site_name: t\n"
        f"hooks: [{ROOT / 'hooks' / 'render_memo.py'}]\n",
    })  # fmt: skip
    session = ServeSession(tmp_path, monkeypatch)
    for _ in range(2):
        session.build()
        assert session.converted == ["# Home"]


def test_a_conversion_is_kept_only_if_replaying_it_is_safe():
    memo = load("render_memo")
    assert memo.keepable('# A\n\n--8<-- "posenc_docs/x.py:a"\n')
    assert not memo.keepable('--8<-- "docs/other.md"\n')  # outside the package
    assert not memo.keepable("--8<--\nposenc_docs/x.py\n--8<--\n")  # block form
    assert not memo.keepable('--8<-- "posenc_docs/../docs/x.md"\n')
    for autodoc in (
        "::: posenc_docs.rope",
        ":::posenc_docs.rope.f",
        "## ::: posenc_docs",
    ):
        assert memo.keepable(f"# A\n\n{autodoc}\n"), autodoc  # mkdocstrings
    for autodoc in ("::: numpy.fft", "## ::: a.b", "::: posenc_docs.x y", ":::"):
        assert not memo.keepable(f"# A\n\n{autodoc}\n"), autodoc  # not the package
    assert not memo.keepable('```python exec="on" session="s"\nx = 1\n```\n')


def test_a_compound_not_kept_whole_keeps_the_phrases_it_holds():
    """A table's "meta-llama/Meta-Llama-3-8B" keeps "Llama-3", "warmup-1e-4" its
    number and "x-10.01–10.22" its range; a "</table>" in a script or in code does
    not end the page's tables (names were then left to break on the whole page)."""
    typography = load("typography")
    out = typography.with_phrases_kept_whole(
        "<table><tr><td>meta-llama/Meta-Llama-3-8B</td><td>warmup-1e-4</td>"
        "<td>x-10.01–10.22</td></tr></table><script>'</table>'</script>"
        "<pre><code><table></code></pre><p>GPT-NeoX and "
        "a-very-long-compound-name-with-GPT-2-inside</p>"
    )
    kept = re.findall(r'<span class="posenc-nobreak">(.*?)</span>', out)
    assert kept == ["Llama-3", "1e-4", "10.01–10.22", "GPT-NeoX", "GPT-2"]


def test_short_phrases_are_kept_whole_in_prose_only():
    """hooks/typography.py: "d = 8", "10.01–10.22", `--help` and "GPT-NeoX" stay
    on one line (at 390 px they broke as "d" / "= 8", "10.01–" / "10.22)", "--" /
    "help" and "GPT-" / "NeoX");
    code, formulas, scripts, a notebook cell's copy text and long phrases are left
    alone."""
    typography = load("typography")
    body = (
        "<h1>7. A worked example at d = 8</h1>"
        "<td>10.11 (10.01–10.22)</td><p>÷ 0.75 words/token = 120,000 tokens and"
        " a &lt; b, but 2026-12-05 and a-b - c</p><td>only as m − n</td>"
        "<p>GPT-NeoX, DeepSeek-V3. and log-n, but fine-tuned 2,048-token runs</p>"
        "<table><tr><td>CodeLlama-7B</td></tr></table>"  # a narrow column may break
        "<p>Run <code>--help</code> or <code>a_very_long_function_name(x, y)</code>"
        " or <code>python -m posenc_docs.lab --help</code> or"
        " <code>posenc_docs/examples/part2/table.py</code></p>"
        "<pre><code>x = 1</code></pre><script>if (a = 1) {}</script>"
        '<span class="katex"><span class="mord">x = 1</span><span>y = 2</span>'
        "</span><p>one_long_operand_name_here = another_long_name</p>"
        '<div class="clipboard-copy-txt" id="cell-2">out = pe(x)\nk = 3</div>'
    )
    out = typography.with_phrases_kept_whole(body)
    kept = re.findall(r'<span class="posenc-nobreak">(.*?)</span>', out)
    prose = ["d = 8", "10.01–10.22", "words/token = 120,000", "a &lt; b,",
             "2026-12-05", "a-b", "m − n", "GPT-NeoX", "DeepSeek-V3.",
             "log-n"]  # fmt: skip
    assert kept == [*prose, "-m", "--help"]  # plain words break at their hyphens
    assert "<td>CodeLlama-7B</td>" in out
    assert '<code class="posenc-nobreak">--help</code>' in out
    assert "<code>a_very_long_function_name(<wbr>x, y)</code>" in out  # may break
    assert "<code>posenc_docs/<wbr>examples/<wbr>part2/<wbr>table.py</code>" in out
    assert (
        '<code>python <span class="posenc-nobreak">-m</span> posenc_docs.lab '
        '<span class="posenc-nobreak">--help</span></code>'
    ) in out
    for untouched in ("<pre><code>x = 1</code></pre>", "if (a = 1) {}",
                      '<span class="mord">x = 1</span><span>y = 2</span>',
                      "one_long_operand_name_here = another_long_name",
                      '"cell-2">out = pe(x)\nk = 3</div>'):  # fmt: skip
        assert untouched in out, untouched
    page = '<head><title>d = 8</title></head><body class="a = b"><p>d = 8</p>'
    out = typography.on_post_page(page, None, None)
    assert out.startswith('<head><title>d = 8</title></head><body class="a = b">')
    assert out.endswith('<p><span class="posenc-nobreak">d = 8</span></p>')
