"""MkDocs hook: what mkdocs-jupyter's notebook pages need before they ship.

Brittle on purpose and isolated here: each pattern must match, or the build stops
saying which one no longer does (mkdocs-jupyter changed its HTML). Notebook pages
take the site's look: code cells get Material's syntax colours (JupyterLab's are
dropped). The ``<style>`` blocks of their bodies become one stylesheet that every
notebook page links (cached once for all of them): the JupyterLab rules some
notebook page can use, then ``notebook.css`` beside this file. It is written, and
each page's link to it filled in, once the last notebook page is written. Each
notebook is also served as an unexecuted ``.ipynb`` next to its ``.py``, made in
memory with the same bytes on every build, both linked under the page's title. A
notebook's page description is its jupytext header's ``description``. Notebooks
execute in a background thread from ``on_files`` on, one after another, into
mkdocs-jupyter's cache: the kernel is a process of its own, so other pages build
meanwhile, and a notebook's page waits for its notebook only when MkDocs renders it.
"""

import hashlib
import itertools
import posixpath
import re
from concurrent.futures import Future
from fnmatch import fnmatch
from pathlib import Path
from types import SimpleNamespace

import build_cache  # hooks/build_cache.py
import jupytext
import nbformat
import unused_css  # hooks/unused_css.py
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

NOTEBOOK_CRUFT = [  # what mkdocs-jupyter adds that this site must not ship
    r"<!-- Load mathjax -->\s*<script src=\"\">\s*</script>",  # empty MathJax loader
    r"<!-- MathJax configuration -->\s*<script type=\"text/x-mathjax-config\">"
    r".*?</script>",
    r"<script type=\"module\">(?:(?!</script>).)*?cdnjs\.cloudflare\.com.*?</script>",
]
# Where the kernel happened to flush stdout mid-cell: two adjacent prompt-less text
# outputs. Joining them (what nbconvert's coalesce_streams does) makes pages stable.
STREAM_BREAK = re.compile(
    r'</pre>\n</div>\n</div>\n<div class="jp-OutputArea-child">\n'
    r'<div class="jp-OutputPrompt jp-OutputArea-prompt"></div>\n'
    r'<div class="jp-RenderedText jp-OutputArea-output" data-mime-type="text/plain"'
    r' tabindex="0">\n<pre>'
)
CODE_CELL = 'class="highlight-ipynb hl-python"><pre>'
# Material's colours; the listing, which scrolls sideways, takes the keyboard focus
# that nbconvert gives the whole input cell
SITE_CODE_CELL = 'class="highlight highlight-ipynb hl-python"><pre tabindex="0">'
FOCUSABLE_INPUT = '<div class="jp-Cell-inputWrapper" tabindex="0">'
# mkdocs-jupyter's template puts a comma between a copy button's attributes, which
# its HTML parser keeps as an attribute named ","
COPY_BUTTON_COMMA = '<clipboard-copy ,="" '
JUPYTER_SYNTAX = re.compile(r"^\.highlight-ipynb[ .][^\n]*\n", re.MULTILINE)
SITE_CSS = Path(__file__).with_name("notebook.css")


def clean_notebook_html(html: str) -> str:
    """Drop MathJax and CDN mermaid loaders; number cells so builds are reproducible.

    KaTeX renders notebook math like every other page's. Jupytext gives each cell a
    random id on every read, so ids become ``nb-cell-1``, ``nb-cell-2``, ... in page
    order (``cell-N`` is taken by the copy buttons' text); stdout split into several
    outputs by flush timing is joined into one. Code cells get Material's
    ``highlight`` class, so they are coloured like every other listing, and the
    code itself, not its cell, is the tab stop, so a keyboard can scroll it. Copy
    buttons lose the stray comma between their attributes.
    """
    for pattern in NOTEBOOK_CRUFT:
        html, found = re.subn(pattern, "", html, flags=re.DOTALL)
        if not found:
            raise PluginError(f"notebook page changed shape: {pattern!r} not found")
    for shape in (CODE_CELL, COPY_BUTTON_COMMA):
        if shape not in html:
            raise PluginError(f"notebook page changed shape: no {shape!r}")
    html = html.replace(COPY_BUTTON_COMMA, "<clipboard-copy ")
    numbers = itertools.count(1)
    html = re.sub(
        r'id="cell-id=[0-9a-f]+"', lambda m: f'id="nb-cell-{next(numbers)}"', html
    )
    html = html.replace(FOCUSABLE_INPUT, '<div class="jp-Cell-inputWrapper">')
    return STREAM_BREAK.sub("", html).replace(CODE_CELL, SITE_CODE_CELL)


INLINE_STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.DOTALL)


STYLESHEET_LINK = '<link rel="stylesheet" href="{href}">'
UNLINKED = STYLESHEET_LINK.format(href="posenc:notebook-stylesheet")  # for now


def styles_taken_out(html: str) -> tuple[str, str]:
    """A notebook page without the ``<style>`` blocks of its body, with a
    placeholder `UNLINKED` at the end of its head (the site's own inline style stays
    there), and the blocks' CSS without JupyterLab's syntax colours."""
    head, _, body = html.partition("</head>")
    return f"{head}{UNLINKED}</head>{INLINE_STYLE.sub('', body)}", jupyterlab_css(body)


def shared_stylesheet(pages: list[tuple[str, str]]) -> tuple[str, str]:
    """The site path (named by a hash of its content) and the content of the one
    stylesheet for notebook pages ``pages`` (each its HTML and its `styles_taken_out`
    CSS): the CSS without what can apply to none of them (`unused_css.for_page`),
    then the site's ``notebook.css``."""
    blocks = "\n".join(dict.fromkeys(css for _, css in pages))  # each once, in order
    used = unused_css.for_page(blocks, "\n".join(html for html, _ in pages))
    css = used + "\n" + SITE_CSS.read_text(encoding="utf-8")
    digest = hashlib.sha256(css.encode()).hexdigest()[:12]
    return f"assets/stylesheets/notebook.{digest}.css", css


def linked(html: str, page_url: str, path: str) -> str:
    """The notebook page with its placeholder link pointing at ``path``."""
    if html.count(UNLINKED) != 1:
        raise PluginError(f"{page_url}: the notebook stylesheet's link went missing")
    href = posixpath.relpath(path, posixpath.dirname(page_url + "x") or ".")
    return html.replace(UNLINKED, STYLESHEET_LINK.format(href=href))


def jupyterlab_css(body: str) -> str:
    """The ``<style>`` blocks of a notebook page's body without JupyterLab's syntax
    colours (code cells take Material's)."""
    css, found = JUPYTER_SYNTAX.subn("", "\n".join(INLINE_STYLE.findall(body)))
    if not found:
        raise PluginError("notebook page changed shape: no .highlight-ipynb rules")
    return css


def notebook_ipynb(script: Path) -> bytes:
    """A jupytext percent script as an unexecuted ``.ipynb``, the same every build.

    Cells are numbered ``cell-1``, ``cell-2``, ... instead of jupytext's random ids,
    and the jupytext pairing metadata is dropped: the file stands on its own.
    """
    notebook = jupytext.read(script)
    for number, cell in enumerate(notebook.cells, 1):
        cell.id = f"cell-{number}"
    notebook.metadata.pop("jupytext", None)
    return (nbformat.writes(notebook) + "\n").encode()


def ipynb_path(src_uri: str) -> str:
    """Where a notebook's ``.ipynb`` goes: beside its page and its ``.py``."""
    stem = posixpath.splitext(posixpath.basename(src_uri))[0]
    return f"{posixpath.dirname(src_uri)}/{stem}/{stem}.ipynb"


def render_into_cache(plugin, file, config, files) -> None:
    """What mkdocs-jupyter does for a notebook's page, for a stand-in page: on a
    cache miss it executes the notebook and writes its cache entry."""
    page = SimpleNamespace(file=file, abs_url="/")  # what on_pre_page reads
    plugin.on_pre_page(page, config=config, files=files)
    page.render(config, files)


def execute_ahead(plugin, notebooks, config, files) -> dict[str, Future]:
    """Each notebook's `render_into_cache`, in one background thread, in order."""
    calls = [(render_into_cache, plugin, file, config, files) for file in notebooks]
    futures = build_cache.in_background(*calls)
    return {file.src_uri: f for file, f in zip(notebooks, futures, strict=True)}


_ahead: dict[str, Future] = {}  # notebook -> its execution, until its page renders


def on_files(files, config):
    scripts = [f for f in files if fnmatch(f.src_uri, "notebooks/*.py")]
    for script in scripts:
        ipynb = notebook_ipynb(Path(script.abs_src_path))
        files.append(File.generated(config, ipynb_path(script.src_uri), content=ipynb))
    plugin = config.plugins["mkdocs-jupyter"]
    notebooks = [file for file in files if plugin.should_include(file)]
    forget_executions()  # what an earlier, failed build of this process left
    _notebook_pages.clear()  # serve: an earlier build's pages are not this one's
    files = pages_last(files, notebooks)  # the site's files from now on
    _ahead.update(execute_ahead(plugin, notebooks, config, files))
    return files


def pages_last(files: Files, last: list[File]) -> Files:
    """``files`` with ``last`` at the end. MkDocs builds pages in this order (the
    nav's order is its own), so the other pages build while the notebooks execute."""
    return Files([file for file in files if file not in last] + last)


def on_pre_page(page, config, files):
    """A notebook's page renders (from the cache) once its notebook has executed."""
    if (execution := _ahead.pop(page.file.src_uri, None)) is None:
        return page
    render = page.render  # mkdocs-jupyter's, set in its on_pre_page (before ours)

    def render_when_executed(config, files):
        execution.result()  # raises what executing the notebook raised
        return render(config, files)

    page.render = render_when_executed
    return page


def on_build_error(error):
    forget_executions()


def forget_executions():
    """Drop the executions no page waited for; those not started are cancelled."""
    while _ahead:
        _ahead.popitem()[1].cancel()


def on_page_markdown(markdown, page, config, files):
    """A notebook's ``description`` (jupytext header, under ``jupyter:``) as meta."""
    if fnmatch(page.file.src_uri, "notebooks/*.py"):
        notebook = jupytext.reads(markdown, fmt="py:percent")
        if "description" in notebook.metadata:
            page.meta["description"] = notebook.metadata["description"]
    return markdown


_notebook_pages: dict[str, tuple[str, str, str]] = {}  # dest path: url, HTML, CSS


def on_page_content(html, page, config, files):
    # Before the search plugin reads the page: its text must not depend on flushes.
    if page.file.src_uri.startswith("notebooks/"):
        return STREAM_BREAK.sub("", html)
    return html


DOWNLOADS = """<p class="posenc-download">Download this notebook:
<a href="{name}.ipynb" download>{name}.ipynb</a> for Jupyter, or
<a href="{name}.py" download>{name}.py</a>, the same cells as a jupytext
percent-format script you can run with Python.</p>"""


def with_downloads(html: str, src_uri: str) -> str:
    """A notebook page with links to its .ipynb and its .py right under its title
    (added after the search index read the page: not text to search)."""
    head, h1, rest = html.partition("</h1>")
    if not h1:
        raise PluginError(f"{src_uri}: a notebook must start with a # title")
    return head + h1 + DOWNLOADS.format(name=Path(src_uri).stem) + rest


def on_post_page(output, page, config):
    if not page.file.src_uri.startswith("notebooks/"):
        return output
    output = with_downloads(clean_notebook_html(output), page.file.src_uri)
    output, css = styles_taken_out(output)
    _notebook_pages[page.file.dest_uri] = (page.url, output, css)
    return output


def on_post_build(config):
    """Write the shared stylesheet, and link it from the written notebook pages."""
    if not _notebook_pages:
        return
    site = Path(config.site_dir)
    path, css = shared_stylesheet([page[1:] for page in _notebook_pages.values()])
    (site / path).parent.mkdir(parents=True, exist_ok=True)
    (site / path).write_text(css, encoding="utf-8")
    for dest, (url, _, _) in _notebook_pages.items():
        written = (site / dest).read_text(encoding="utf-8")  # as other hooks left it
        (site / dest).write_text(linked(written, url, path), encoding="utf-8")
