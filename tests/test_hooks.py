"""Unit tests for the MkDocs hook and the macros module."""

import importlib.util
from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from posenc_docs.pages.format import count, fixed

ROOT = Path(__file__).resolve().parents[1]


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
    assert "assets/katex/katex.min.js" in files
    assert "assets/katex/contrib/auto-render.min.js" in files
    assert sum(name.endswith(".woff2") for name in files) >= 10


def test_figures_are_cached_by_their_inputs(tmp_path, monkeypatch):
    from posenc_docs import figures

    monkeypatch.setattr(figures, "FIGURES", figures.FIGURES[:2])
    first = build_assets.figure_files(ROOT, tmp_path)
    assert len(first) == 2 * len(figures.FIGURES) == 4
    drawn = []

    def record(jobs):
        drawn.extend(jobs)
        return [b"<svg/>"] * len(jobs)

    monkeypatch.setattr(build_assets, "render_all", record)
    second = build_assets.figure_files(ROOT, tmp_path)
    assert drawn == [] and second == first
    monkeypatch.setattr(build_assets, "inputs_digest", lambda project_dir: "changed")
    build_assets.figure_files(ROOT, tmp_path)
    assert len(drawn) == 2 * len(figures.FIGURES)


def test_parallel_and_serial_drawing_give_the_same_bytes():
    from posenc_docs.figures import FIGURES, render

    jobs = [(spec.slug, theme) for spec in FIGURES[:2] for theme in ("light", "dark")]
    assert build_assets.render_all(jobs) == [render(*job) for job in jobs]


def test_number_formatting():
    assert fixed(3.535255, 4) == "3.5353"
    assert fixed(-0.41614, 4) == "\N{MINUS SIGN}0.4161"
    assert count(6283.185) == "6,283"
    assert count(60611.48) == "60,611"


def test_figure_markdown_links_both_themes_relative_to_the_page():
    from posenc_docs.figures import FIGURES

    slug = FIGURES[0].slug
    text = macros.figure_markdown(slug, "part1/page.md")
    assert f"](../figures/{slug}-light.svg#only-light)" in text
    assert f"](../figures/{slug}-dark.svg#only-dark)" in text
    assert macros.figure_markdown(slug, "index.md").count("](figures/") == 2
    with pytest.raises(KeyError, match="no figure named"):
        macros.figure_markdown("nope", "index.md")


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
