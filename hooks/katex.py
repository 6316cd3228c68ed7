"""MkDocs hook: math rendered to HTML at build time by KaTeX, one Node process a build.

Pages ship KaTeX's stylesheet and fonts but no KaTeX JavaScript, so formulas show
with JavaScript off and nothing moves after first paint. Markdown pages carry
arithmatex's ``\\(...\\)`` / ``\\[...\\]`` spans; notebook pages carry ``$...$`` and
``$$...$$`` in their Markdown cells. Invalid TeX stops the build, naming the page
and the formula. Each page's formulas are cached under ``.cache/katex/`` by their
TeX and KaTeX's version, so Node starts only when a formula is new.
"""

import hashlib
import html
import json
import posixpath
import re
import subprocess
from pathlib import Path

import build_cache  # hooks/build_cache.py
import katex_fonts  # hooks/katex_fonts.py
from mkdocs.exceptions import PluginError

SCRIPT = Path(__file__).with_name("katex_render.mjs")
ARITHMATEX = re.compile(
    r'(?P<before>[(\[]?)<(span|div) class="arithmatex">'
    r"(?:\\\((?P<inline>.*?)\\\)|\\\[(?P<block>.*?)\\\])</\2>"
    r"(?P<after>[,.;:!?)\]]*(?: (?:=|≈|≤|≥|&lt;|&gt;) [^\s<]+)?)",
    re.DOTALL,
)
# In notebook Markdown cells: $$...$$ first, then $...$ (no newline inside).
DOLLARS = re.compile(
    r"\$\$(?P<block>.+?)\$\$"
    r"|(?P<before>[(\[]?)\$(?P<inline>[^$\n]+?)\$(?P<after>[,.;:!?)\]]*)",
    re.DOTALL,
)
NOTEBOOK_CELL = re.compile(
    r'(<div class="[^"]*\bjp-MarkdownOutput\b[^"]*"[^>]*>)(.*?)(</div>)',
    re.DOTALL,
)
NOBREAK_TEX = 48  # TeX characters: KaTeX renders them narrower than a phone
UNTOUCHED = re.compile(r"(<(pre|code)\b.*?</\2>)", re.DOTALL)


class KatexRenderer:
    """A long-lived ``node katex_render.mjs``: TeX in, HTML out, in batches.

    With a ``store``, a batch already rendered by this KaTeX comes from the cache,
    and Node starts only on the first batch that is not there.
    """

    def __init__(self, project_dir: Path, store=None):
        self._project_dir, self._store, self._process = project_dir, store, None
        katex = project_dir / "node_modules" / "katex" / "package.json"
        self._version = hashlib.sha256(katex.read_bytes() + SCRIPT.read_bytes())

    def render(self, items: list[tuple[str, bool]], where: str) -> list[str]:
        """HTML for each ``(tex, display)``; invalid TeX raises naming ``where``."""
        if not items:
            return []
        digest = self._version.copy()
        digest.update(json.dumps(items).encode())
        key = digest.hexdigest()
        cached = self._store.get(key) if self._store else None
        if cached is not None:
            return json.loads(cached)
        rendered = self._render(items, where)
        if self._store:
            self._store.put(key, json.dumps(rendered).encode())
        return rendered

    def _render(self, items: list[tuple[str, bool]], where: str) -> list[str]:
        if self._process is None:
            self._process = subprocess.Popen(
                ["node", str(SCRIPT)],
                cwd=self._project_dir,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                encoding="utf-8",
            )
        self._process.stdin.write(json.dumps(items) + "\n")
        self._process.stdin.flush()
        answer = json.loads(self._process.stdout.readline())
        if "error" in answer:
            tex = items[answer["error"]["index"]][0]
            message = answer["error"]["message"]
            raise PluginError(f"invalid TeX on {where}: {tex!r}: {message}")
        return answer["html"]

    def close(self) -> None:
        if self._process is not None:
            self._process.stdin.close()
            self._process.wait(timeout=10)
            self._process = None


def render_arithmatex(page_html: str, renderer: KatexRenderer, where: str) -> str:
    """Replace each arithmatex span or div by KaTeX's HTML, inside the same tag."""
    found = list(ARITHMATEX.finditer(page_html))
    items = [
        (html.unescape(m["inline"] if m["block"] is None else m["block"]).strip(),
         m["block"] is not None)
        for m in found
    ]  # fmt: skip
    rendered = iter(renderer.render(items, where))

    def replaced(m) -> str:
        formula = f'<{m[2]} class="arithmatex">{next(rendered)}</{m[2]}>'
        if m[2] == "div":  # display math: its own block, nothing to keep beside it
            return m["before"] + formula + m["after"]
        return with_punctuation(m["before"], formula, m["after"], m["inline"])

    return ARITHMATEX.sub(replaced, page_html)


def with_punctuation(before, formula: str, after, tex: str) -> str:
    """A short inline formula, the bracket right before it and the punctuation
    right after it, on one line.

    An inline formula does not break inside (``extra.css``: KaTeX's lines broke
    after its relations and operators, "PE(pos +" / "k) = M_k PE(pos)") unless it
    has more than NOBREAK_TEX characters of TeX: such a one is marked
    ``posenc-breakable``. Chromium may also break a line between a formula ending
    in a subscript, a power or a root and the comma after it, leaving the comma
    alone at a line's start, and between an opening bracket and the formula after
    it ("23.7 (" / "j/d)"). A relation and its operand after the formula join it
    too ("is s" / "= 93.06"): all go into one nowrap ``posenc-nobreak`` span.
    """
    before, after = before or "", after or ""
    if len(tex) > NOBREAK_TEX:  # too wide to keep whole on a phone
        return f'{before}<span class="posenc-breakable">{formula}</span>{after}'
    if not (before or after):
        return formula
    return f'<span class="posenc-nobreak">{before}{formula}{after}</span>'


def render_dollars(text: str, renderer: KatexRenderer, where: str) -> str:
    """Render ``$...$`` and ``$$...$$`` in ``text``, leaving ``<pre>``/``<code>``."""
    pieces = UNTOUCHED.split(text)
    prose = pieces[::3]  # split keeps both groups: prose, element, tag name, prose...
    found = [m for part in prose for m in DOLLARS.finditer(part)]
    items = [
        (html.unescape(m["inline"] or m["block"]).strip(), m["block"] is not None)
        for m in found
    ]
    rendered = iter(renderer.render(items, where))

    def replaced(m) -> str:
        formula = next(rendered)
        if m["block"] is not None:  # display math: its own block
            return formula
        return with_punctuation(m["before"], formula, m["after"], m["inline"])

    pieces[::3] = [DOLLARS.sub(replaced, part) for part in prose]
    del pieces[2::3]  # the tag-name group
    return "".join(pieces)


def render_notebook_cells(page_html: str, renderer: KatexRenderer, where: str) -> str:
    """Render the dollar math of every Markdown cell of a notebook page."""
    return NOTEBOOK_CELL.sub(
        lambda m: m[1] + render_dollars(m[2], renderer, where) + m[3], page_html
    )


def with_font_preloads(page_html: str, page_url: str, fonts: list[str]) -> str:
    """Preload the KaTeX ``fonts`` (file stems) the page's math is set in: each
    starts with the stylesheet, not after the first layout, so no formula moves
    the text around it when its font arrives (`katex_fonts`)."""
    here = posixpath.dirname(page_url + "x") or "."
    links = "".join(
        f'<link rel="preload" as="font" type="font/woff2" crossorigin href="'
        f'{posixpath.relpath(f"assets/katex/fonts/{name}.woff2", here)}">'
        for name in fonts
    )
    return page_html.replace("</head>", links + "</head>", 1)


_renderer: KatexRenderer | None = None
_stylesheet: katex_fonts.Stylesheet | None = None


def on_pre_build(config):
    global _renderer, _stylesheet
    project_dir = Path(config.config_file_path).parent
    store = build_cache.Store(project_dir / ".cache" / "katex")
    _renderer = KatexRenderer(project_dir, store)
    css = project_dir / "node_modules" / "katex" / "dist" / "katex.min.css"
    _stylesheet = katex_fonts.Stylesheet(css.read_text(encoding="utf-8"))


def on_post_page(output, page, config):
    where = page.file.src_uri
    output = render_arithmatex(output, _renderer, where)
    if where.startswith("notebooks/"):
        output = render_notebook_cells(output, _renderer, where)
    fonts = katex_fonts.fonts_used(output, _stylesheet)
    return with_font_preloads(output, page.url, fonts)


def on_post_build(config):
    _renderer.close()


def on_build_error(error):
    if _renderer is not None:
        _renderer.close()
