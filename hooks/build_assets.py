"""MkDocs hook: adds KaTeX and every build-time figure to the site, in memory.

Nothing is written into ``docs/``. KaTeX comes from ``node_modules`` (``npm ci``);
figures are drawn by ``posenc_docs.figures`` in the light theme and cached under
``.cache/figures/``, each figure module by its own sources (``hooks/build_cache.py``),
so a build redraws only the figures whose code changed; each dark variant is its
light one recoloured (``spec.dark_variant``). Missing figures are drawn in worker
processes while the pages build: started in ``on_files``, collected in
``on_post_build``, which writes them into the site and gives each page's figures
their width and height.
"""

import json
import math
import multiprocessing
import os
import re
import site
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import forkserver
from pathlib import Path
from types import SimpleNamespace

import build_cache  # hooks/build_cache.py
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from posenc_docs.figures.spec import THEMES, dark_variant, figure_path, svg_size

FIGURE_IMG = re.compile(  # the site's own figures/, from any page's folder
    r'<(?:img src|source srcset)="(?P<src>(?:\.\./)*figures/(?P<name>[^"/]+\.svg))"'
)
KATEX_FILES = ["katex.min.css"]  # math is rendered at build time: no KaTeX JS


def katex_dir(project_dir: Path) -> Path:
    """Where ``npm ci`` puts KaTeX's distribution; stop the build if it is missing."""
    dist = project_dir / "node_modules" / "katex" / "dist"
    if not (dist / "katex.min.css").is_file():
        raise PluginError(
            f"KaTeX not found in {dist}. Run `npm ci` (or `make serve`) first."
        )
    return dist


def fonts_shown_only_if_ready(css: bytes) -> bytes:
    """KaTeX's stylesheet with ``font-display: optional`` for ``block``.

    With ``block`` a font that arrives after the first frame (a slow phone, a busy
    machine) widens the formulas set in it and moves the text beside them: 0.071
    layout shift on 07-context-extension with its first font 300 ms late. With
    ``optional`` a browser draws the page once, with the font if its preload has
    arrived (Chromium waits for a preloaded one for a moment) and otherwise with
    the fallback serif for that page only; the next page finds it in the cache.
    """
    others = css.replace(b"font-display:block", b"")
    if others == css or b"font-display:" in others:
        raise PluginError("KaTeX's CSS: expected every font-display to be block")
    return css.replace(b"font-display:block", b"font-display:optional")


def katex_files(dist: Path) -> dict[str, bytes]:
    """Site path -> bytes for KaTeX's stylesheet (`fonts_shown_only_if_ready`) and
    fonts."""
    files = {
        f"assets/katex/{p.relative_to(dist).as_posix()}": p.read_bytes()
        for p in [dist / name for name in KATEX_FILES]
        + sorted((dist / "fonts").glob("*.woff2"))
    }
    css = "assets/katex/katex.min.css"
    return files | {css: fonts_shown_only_if_ready(files[css])}


def figure_modules(project_dir: Path) -> list[str]:
    """Every module of ``posenc_docs.figures`` (those without figures list none)."""
    folder = project_dir / "posenc_docs" / "figures"
    return [f"posenc_docs.figures.{p.stem}" for p in sorted(folder.glob("[!_]*.py"))]


# Each worker takes a core from the page build. Measured when each worker imported
# torch and matplotlib itself (about ten variants' drawing), one worker drew 14
# variants sooner than two did; forked workers start cheaper (not measured again).
VARIANTS_PER_WORKER = 32
# Imported once, by the fork server, which forks the workers (this process has
# threads: it is not forked itself). Libraries only: each worker imports the
# project's modules, so a serve rebuild never draws with stale ones.
WORKER_LIBRARIES = ["numpy", "torch", "matplotlib.pyplot"]


def worker_context():
    """The workers' multiprocessing context, its fork server started (it imports
    WORKER_LIBRARIES meanwhile; nothing waits for it here). Where there is no fork
    server (Windows), spawn: each worker then imports everything itself."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(WORKER_LIBRARIES)
    forkserver.ensure_running()
    return context


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """Worker processes that import the figure modules, so this one does not."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=worker_context(),
        initializer=site.addsitedir,  # workers import build_cache from hooks/
        initargs=(str(Path(build_cache.__file__).parent),),
    )


def fields_of(modules: list[str]) -> dict[str, dict]:
    """`build_cache.module_fields` of each module, read by one worker process: a
    figure module imports matplotlib and torch, which this process then need not
    (after a serve edit, nor at all unless a macro needs torch)."""
    if not modules:
        return {}
    with worker_pool(1) as pool:
        fields = pool.map(build_cache.module_fields, modules)
        return dict(zip(modules, fields, strict=True))


class Drawing:
    """Figure variants being drawn by worker processes while the build goes on:
    one variant per task (one large figure does not keep a worker waiting), one
    worker per VARIANTS_PER_WORKER variants up to a worker per core."""

    def __init__(self, variants: list[tuple[str, bool]]):
        self.variants, self.pool, self.submitted = variants, None, None
        self.svgs = None if variants else []
        if variants:
            self.start_workers()

    def start_workers(self):
        wanted = math.ceil(len(self.variants) / VARIANTS_PER_WORKER)
        self.pool = worker_pool(min(os.cpu_count() or 1, wanted))
        # A submit starts a worker once the fork server is ready: not on this thread.
        (self.submitted,) = build_cache.in_background((self.submit_all,))

    def submit_all(self) -> list:
        return [self.pool.submit(build_cache.draw_variant, *v) for v in self.variants]

    def result(self) -> dict[tuple[str, bool], str]:
        """``(slug, phone)`` -> SVG of every variant, waiting for the workers."""
        if self.svgs is None:
            try:
                self.svgs = [future.result() for future in self.submitted.result()]
            finally:
                self.close()
        return dict(zip(self.variants, self.svgs, strict=True))

    def close(self):
        """Stop the workers; drawings not started are dropped."""
        if self.pool is not None:
            self.submitted.exception()  # waits for the submitting to end
            self.pool.shutdown(cancel_futures=True)
            self.pool = None


def figure_keys(project_dir: Path) -> dict[str, str]:
    """Figure module -> cache key: the module's sources, what it imports."""
    extra = ("figures", build_cache.DRAWN_THEME)
    return {
        module: build_cache.artifact_key(
            build_cache.module_source(module, project_dir),
            project_dir,
            *extra,
            name=module,
        )
        for module in figure_modules(project_dir)
    }


RENDERING = "import posenc_docs.figures.style\n"  # every figure's look (and spec's)


def figure_key(module: str, slug: str, project_dir: Path) -> str:
    """Cache key of one figure's SVGs: what it is made of (`figure_source`) and
    what that imports, and how every figure is drawn; the whole module's sources
    if what the figure is made of cannot be told."""
    source = build_cache.module_source(module, project_dir)
    made_of = build_cache.figure_source(source, slug)
    name = None if made_of else module
    theme = build_cache.DRAWN_THEME
    return build_cache.artifact_key(
        RENDERING + (made_of or source), project_dir, "figure", slug, theme, name=name
    )


class FigureFiles:
    """Every figure's SVGs in both themes, for desktops and for phones.

    Made in `on_files`. The cache (``.cache/figures/``) holds each figure module
    whole (fields, SVGs, widget attributes), keyed by its sources, and each
    figure's SVGs, keyed by what that figure is made of (`figure_key`). A module
    the cache lacks is imported for its fields by a worker process (`fields_of`);
    of its figures, those the cache lacks start drawing. Each figure's fields and
    each widget's attributes are published at once, for the macros, so pages build
    meanwhile and a page's ``figure()`` needs no figure module imported. `files`
    waits for the drawings (`on_post_build`, once the pages are written).
    """

    def __init__(self, project_dir: Path, cache_dir: Path):
        self.store = build_cache.Store(cache_dir)
        self.keys = figure_keys(project_dir)
        hits = {module: self.store.get(key) for module, key in self.keys.items()}
        self.uncached = [module for module, hit in hits.items() if hit is None]
        fields = fields_of(self.uncached)
        self.modules, self.svg_keys, missing = {}, {}, []
        for module, hit in hits.items():
            if hit is not None:
                self.modules[module] = json.loads(hit)
                continue
            self.modules[module] = fields[module]
            for figure in self.modules[module]["figures"]:
                slug = figure["slug"]
                self.svg_keys[slug] = figure_key(module, slug, project_dir)
                if self.store.get(self.svg_keys[slug]) is None:
                    missing += [(slug, False), (slug, True)]
        self.drawing = Drawing(missing)
        self.publish()

    def publish(self):
        specs = {}
        for module in self.modules.values():
            for figure in module["figures"]:
                fields = {k: v for k, v in figure.items() if not k.startswith("svg")}
                specs[figure["slug"]] = SimpleNamespace(**fields)
            build_cache.WIDGET_ATTRIBUTES.update(module["widgets"])
        build_cache.FIGURE_SPECS.clear()
        build_cache.FIGURE_SPECS.update(specs)

    @property
    def paths(self) -> list[str]:
        """Site path of every SVG (known before any is drawn)."""
        return [
            figure_path(figure["slug"], theme, phone)
            for module in self.modules.values()
            for figure in module["figures"]
            for phone in (False, True)
            for theme in THEMES
        ]

    def svgs(self) -> dict[tuple[str, bool], str]:
        """``(slug, phone)`` -> SVG of every figure of the modules not cached whole:
        the new drawings (now stored, by figure), the others from the cache."""
        drawn = self.drawing.result()
        svgs = {}
        for slug, key in self.svg_keys.items():
            if (slug, False) in drawn:
                pair = [drawn[(slug, False)], drawn[(slug, True)]]
                self.store.put(key, json.dumps(pair).encode())
            pair = json.loads(self.store.get(key))
            svgs |= {(slug, False): pair[0], (slug, True): pair[1]}
        return svgs

    def files(self) -> dict[str, bytes]:
        """Site path -> SVG bytes; each dark SVG is its light one recoloured."""
        svgs = self.svgs()
        for module in self.uncached:
            drawn = build_cache.module_json(self.modules[module], svgs)
            self.modules[module] = json.loads(self.store.put(self.keys[module], drawn))
        files = {}
        for figure in (f for m in self.modules.values() for f in m["figures"]):
            for phone, field in ((False, "svg"), (True, "svg_phone")):
                light = figure[field].encode()
                files[figure_path(figure["slug"], "light", phone)] = light
                files[figure_path(figure["slug"], "dark", phone)] = dark_variant(light)
        return files


def with_sizes(page_html: str, sizes: dict[str, tuple[int, int]]) -> str:
    """Give every figure ``<img>`` and ``<source>`` its width and height, so nothing
    shifts on load (the phone variant has another aspect ratio)."""

    def sized(match):
        size = sizes.get(f"figures/{match['name']}")
        if size is None:
            raise PluginError(
                f"{match['src']}: the site's figures/ holds only the figures "
                f"posenc_docs.figures draws, and none is named {match['name']}"
            )
        return f'{match[0]} width="{size[0]}" height="{size[1]}"'

    return FIGURE_IMG.sub(sized, page_html)


_drawing: list[tuple[FigureFiles, list[File]]] = []  # from on_files to on_post_build
_figure_pages: list[Path] = []  # written pages showing a figure, sized once drawn


def on_startup(command, dirty):
    if command == "serve":  # a rebuild may draw: no waiting for the fork server then
        worker_context()


def on_config(config):
    katex_dir(Path(config.config_file_path).parent)
    return config


def on_files(files, config):
    stop_drawing()  # an earlier build of this process (serve) that failed
    _figure_pages.clear()
    project_dir = Path(config.config_file_path).parent
    for src_uri, content in katex_files(katex_dir(project_dir)).items():
        files.append(File.generated(config, src_uri, content=content))
    figures = FigureFiles(project_dir, project_dir / ".cache" / "figures")
    pending = [File.generated(config, path, content=b"") for path in figures.paths]
    for file in pending:  # in the site's files while links are checked ...
        files.append(file)
    _drawing.append((figures, pending))
    return files


def on_env(env, config, files):
    """... but not copied with the others: the pages build while the figures are
    drawn, and `on_post_build` writes them."""
    for file in _drawing[-1][1]:
        files.remove(file)
    return env


def on_post_page(output, page, config):
    if FIGURE_IMG.search(output):
        _figure_pages.append(Path(page.file.abs_dest_path))
    return output


def on_post_build(config):
    """Wait for the figures, write them into the site, then size the pages' figures."""
    figures, pending = _drawing.pop()
    drawn = figures.files()
    sizes = {}
    for file in pending:
        file.content_bytes = drawn[file.src_uri]
        file.copy_file()
        sizes[file.src_uri] = svg_size(drawn[file.src_uri])
    for path in _figure_pages:
        try:
            sized = with_sizes(path.read_bytes().decode(), sizes)
        except PluginError as error:
            raise PluginError(f"{path.relative_to(config.site_dir)}: {error}") from None
        path.write_bytes(sized.encode())


def on_build_error(error):
    stop_drawing()


def stop_drawing():
    """Stop the workers of a build that ended between on_files and on_env."""
    while _drawing:
        _drawing.pop()[0].drawing.close()
