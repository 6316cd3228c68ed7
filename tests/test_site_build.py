"""The strict build: validation settings bite, and every code block a reader copies
runs as copied (that two builds give the same bytes: tests/test_build_cache.py)."""

import gzip
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, page_soup

pytestmark = pytest.mark.build


def test_nothing_is_generated_into_docs():
    tracked = subprocess.run(
        ["git", "status", "--porcelain", "--ignored", "docs"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout
    assert "figures/" not in tracked and "assets/katex" not in tracked


def probe_build(tmp_path, pages: dict[str, str]) -> subprocess.CompletedProcess:
    """A strict build of ``pages`` (name -> Markdown; only index.md in the nav)
    with our ``validation:`` settings."""
    ours = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    config = {"site_name": "probe", "strict": True, "validation": ours["validation"]}
    config["nav"] = ["index.md"]
    (tmp_path / "docs").mkdir()
    for name, text in pages.items():
        (tmp_path / "docs" / name).write_text(text)
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config))
    command = [sys.executable, "-m", "mkdocs", "build"]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True)


@pytest.mark.parametrize(
    ("link", "complaint"),  # complaint: what the failed build names; None: it builds
    [
        ("[fine](#probe)", None),
        ("[broken](missing.md)", "'missing.md'"),
        ("[anchor](#no-such-heading)", "'#no-such-heading'"),
        ("[absolute](/index.md)", "'/index.md'"),
    ],
)
def test_validation_settings_fail_the_build_on_bad_links(tmp_path, link, complaint):
    result = probe_build(tmp_path, {"index.md": f"# Probe\n\n{link}\n"})
    if complaint is None:
        assert result.returncode == 0, result.stderr
    else:
        assert result.returncode != 0 and complaint in result.stderr, result.stderr


def test_validation_settings_fail_the_build_on_a_page_left_out_of_the_nav(tmp_path):
    pages = {"index.md": "# Probe\n", "unlisted.md": "# Not in nav\n"}
    result = probe_build(tmp_path, pages)
    assert result.returncode != 0 and "unlisted.md" in result.stderr, result.stderr


def reader_code(page: Path) -> list[str]:
    """The text of every Python block a reader can copy from ``page``, in order
    (an API signature is not one: it has no copy button, extra.css)."""
    copyable = "div.language-python.highlight:not(.doc-signature) pre code"
    blocks = page_soup(page).select(copyable)
    return [block.get_text() for block in blocks]


def run_page_blocks(site_dir, html_pages, tmp_path, python, env) -> int:
    """Run each page's copyable blocks, joined in page order, as one script.

    ``python`` (a command) runs ``tests/run_scripts.py``, which runs each script
    in a process of its own, in its own directory. Returns the number of blocks.
    """
    scripts = {}
    for page in html_pages:
        if blocks := reader_code(site_dir / page):
            name = "_".join(page.parent.parts) or "home"
            (tmp_path / name).mkdir()
            scripts[page] = (tmp_path / name / "blocks.py", len(blocks))
            scripts[page][0].write_text("\n\n".join(blocks))
    command = [*python, "-I", ROOT / "tests" / "run_scripts.py"]
    command += [script for script, _ in scripts.values()]
    result = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    status = json.loads(result.stdout.splitlines()[-1])
    for page, (script, _) in scripts.items():
        stderr = (script.parent / "stderr.txt").read_text()
        assert status[str(script)] == 0, f"{page}:\n{stderr[-3000:]}"
    return sum(count for _, count in scripts.values())


def test_every_copyable_block_runs_in_page_order(site_dir, html_pages, tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MPLBACKEND"] = "Agg"
    python = [sys.executable]
    assert run_page_blocks(site_dir, html_pages, tmp_path, python, env) >= 3


def test_the_sitemap_lists_every_page_and_holds_no_build_date(site_dir, html_pages):
    """hooks/sitemap.py: mkdocs dated every page with the day of the build and
    stamped sitemap.xml.gz with it, so two builds a day apart differed."""
    site_url = yaml.safe_load((ROOT / "mkdocs.yml").read_text())["site_url"]
    xml = (site_dir / "sitemap.xml").read_bytes()
    listed = re.findall(r"<loc>([^<]+)</loc>", xml.decode())
    assert listed and not re.search(rb"lastmod|\d{4}-\d\d-\d\d", xml)
    folders = [page.parent.as_posix() for page in html_pages]  # "." for home
    assert set(listed) == {f"{site_url}{f}/".replace("/./", "/") for f in folders}
    packed = (site_dir / "sitemap.xml.gz").read_bytes()
    assert packed[4:8] == bytes(4) and gzip.decompress(packed) == xml  # mtime 0


def test_site_serves_the_wheel_the_install_page_links(site_dir):
    from posenc_docs.pages.install import WHEEL_PATH

    wheel = site_dir / WHEEL_PATH
    assert zipfile.ZipFile(wheel).testzip() is None
    install = page_soup(site_dir / "install/index.html")
    links = {a["href"] for a in install.select("article a[href$='.whl']")}
    assert {(site_dir / "install" / href).resolve() for href in links} == {wheel}
    with zipfile.ZipFile(wheel) as archive:
        meta = archive.read(next(n for n in archive.namelist() if "METADATA" in n))
    requires = re.findall(r"^Requires-Dist: ([^;\n]+)", meta.decode(), re.MULTILINE)
    listed = [code.get_text() for code in install.select("article td:first-child code")]
    assert sorted(listed) == sorted(r.strip() for r in requires)
    python = re.search(r"^Requires-Python: (.+)$", meta.decode(), re.MULTILINE)[1]
    assert f"Python {python.strip()}" in install.select_one("article td").get_text()
    assert not (ROOT / "docs" / "downloads").exists()


def test_pages_whose_code_imports_the_package_point_to_the_install_page(
    site_dir, html_pages
):
    pointed = set()
    for page in html_pages:
        code = "\n".join(reader_code(site_dir / page))
        pointer = page_soup(site_dir / page).select("p.posenc-install a")
        if re.search(r"^\s*(from|import) posenc_docs\b", code, re.MULTILINE):
            assert len(pointer) == 1, page
        if pointer:
            target = (site_dir / page.parent / pointer[0]["href"]).resolve()
            assert target == site_dir / "install", page
            pointed.add(page.parent.as_posix())
    assert {"part2/04-rope", "notebooks/sinusoidal_tour", "lab"} <= pointed
    assert not pointed & {".", "install", "api/rope", "part2/12-references"}


def test_no_page_sends_readers_to_the_package_index(site_dir, html_pages):
    for page in html_pages:
        text = page_soup(site_dir / page).get_text()
        assert "pypi.org/project/posenc" not in text.lower(), page
        for command in re.findall(r"pip install\s+(.+)", text):
            if "posenc" in command:  # only by URL, file or clone
                assert "/" in command or command.startswith("."), (page, command)


# A plugin's page assets and the markup they serve: a page that has none of the
# markup should not load them (markdown-exec adds pyodide's to every page).
ASSET_MARKUP = {"assets/_markdown_exec_pyodide.": 'class="pyodide'}


def test_pages_load_no_asset_for_markup_they_lack(site_dir, html_pages):
    for page in html_pages:
        soup = page_soup(site_dir / page)
        linked = [tag.get("href") or tag.get("src") for tag in soup(["link", "script"])]
        html = str(soup)
        for asset, markup in ASSET_MARKUP.items():
            loads = [url for url in linked if url and asset in url]
            assert not loads or markup in html, (page, loads)


def test_notebook_pages_ship_a_small_part_of_jupyterlabs_stylesheet(
    site_dir, html_pages
):
    """hooks/unused_css.py: the whole stylesheet is 590 kB; the notebook pages use
    21 kB of it (that nothing they use went: tests/test_browser.py), in one file
    they all link: a reader who opens a second notebook has it cached."""
    notebooks = [page for page in html_pages if page.parts[0] == "notebooks"]
    shared = set()
    for page in notebooks:
        soup = page_soup(site_dir / page)
        sheets = [link["href"] for link in soup("link") if "notebook." in link["href"]]
        assert len(sheets) == 1 and not soup.select("body style"), page
        shared.add((site_dir / page.parent / sheets[0]).resolve())
    (stylesheet,) = shared
    css = stylesheet.read_text(encoding="utf-8")
    assert ".jp-OutputArea" in css and len(css) < 40_000, len(css)
    assert len(notebooks) >= 2
    assert list(stylesheet.parent.glob("notebook.*")) == [stylesheet]


def test_listings_carry_no_unstyled_token_spans(site_dir, html_pages):
    """hooks/listings.py runs on every page, notebooks included: a listing keeps the
    spans that colour it and none that only cost the browser."""
    coloured = 0
    for page in html_pages:
        for pre in page_soup(site_dir / page)("pre"):
            spans = pre("span")
            assert not [s for s in spans if s.get("class") in (["n"], ["w"], None)], (
                page
            )
            coloured += len(spans)
    assert coloured > 1000  # the listings are still highlighted


def test_every_table_is_plain_and_in_materials_wrapper(site_dir, html_pages):
    """hooks/material_bundle.py styles the tables in Material's scroll wrapper as
    Material styles tables without a class: the same while every table built is
    one without a class, in that wrapper (hooks/tables.py)."""
    tables = [t for page in html_pages for t in page_soup(site_dir / page)("table")]
    assert len(tables) > 10
    assert not [t for t in tables if t.has_attr("class")]
    assert not [t for t in tables if t.parent.get("class") != ["md-typeset__table"]]


# Characters of printed output in columns that a 390 px phone shows whole, clear
# of the edge and its scroll shadow: 8.18 px a character, 45 visible in a
# listing's block (it spans the screen) and 43 in a notebook's output (inside its
# cell), measured in Chromium, less two.
PHONE_COLUMNS = {"highlight": 43, "jp-RenderedText": 41}
# The source article's section-8 listing, run as published (notebook 08): its
# printout is the article's, kept as it is.
ARTICLE_OUTPUT = "Sinusoidal PE output:"


def test_output_in_columns_fits_a_phone(site_dir, html_pages):
    """Output in columns does not wrap (hooks/listings.py): it scrolls, and a number
    past the phone's edge is one the reader cannot see while the prose cites it
    (a learner found them in most Part I outputs: 2.2e- cut from its exponent,
    the 133 and 95 pairs, the article check's verdicts)."""
    checked, wide = 0, []
    for page in html_pages:
        for block in page_soup(site_dir / page).select(".posenc-aligned"):
            text = block.find("pre").get_text()
            if ARTICLE_OUTPUT in text:
                continue
            limit = next(n for key, n in PHONE_COLUMNS.items() if key in block["class"])
            checked += 1
            wide += [
                (str(page), line) for line in text.splitlines() if len(line) > limit
            ]
    assert checked >= 20
    assert wide == []
