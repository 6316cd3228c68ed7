"""MkDocs hook: adds KaTeX and every build-time figure to the site, in memory.

Nothing is written into ``docs/``. KaTeX comes from ``node_modules`` (``npm ci``);
figures are drawn by ``posenc_docs.figures`` in the light theme and cached under
``.cache/figures/``, each figure module by its own sources (``hooks/build_cache.py``),
so a build redraws only the figures whose code changed; each dark variant is its
light one recoloured (``spec.dark_variant``). Missing figures are drawn in worker
processes while the pages build: started in ``on_files``, collected in ``on_env``.
"""

import json
import multiprocessing
import os
import re
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from types import SimpleNamespace

import build_cache  # hooks/build_cache.py
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from posenc_docs.figures.spec import THEMES, dark_variant, figure_path, svg_size

FIGURE_IMG = re.compile(
    r'<(?:img src|source srcset)="(?P<src>[^"]*figures/(?P<name>[^"/]+\.svg))"'
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


def katex_files(dist: Path) -> dict[str, bytes]:
    """Site path -> bytes for KaTeX's stylesheet and fonts."""
    wanted = [dist / name for name in KATEX_FILES]
    wanted += sorted((dist / "fonts").glob("*.woff2"))
    return {
        f"assets/katex/{p.relative_to(dist).as_posix()}": p.read_bytes() for p in wanted
    }


def figure_modules(project_dir: Path) -> list[str]:
    """Every module of ``posenc_docs.figures`` (those without figures list none)."""
    folder = project_dir / "posenc_docs" / "figures"
    return [f"posenc_docs.figures.{p.stem}" for p in sorted(folder.glob("[!_]*.py"))]


class Drawing:
    """Figure modules being drawn while the build goes on: one figure variant per
    task on every core (one large module does not keep a core waiting); a few
    variants are drawn here at once."""

    def __init__(self, modules: list[str]):
        self.modules = modules
        self.variants = [v for m in modules for v in build_cache.figure_variants(m)]
        self.pool, self.futures = None, []
        if len(self.variants) < 4:
            self.svgs = [build_cache.draw_variant(*v) for v in self.variants]
        else:
            self.svgs = None
            self.start_workers()

    def start_workers(self):
        context = multiprocessing.get_context("spawn")  # no fork: torch has threads
        workers = min(os.cpu_count() or 1, len(self.variants))
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        hooks = str(Path(build_cache.__file__).parent)
        sys.path.insert(0, hooks)  # workers import build_cache; spawned on submit
        try:
            draw = build_cache.draw_variant
            self.futures = [self.pool.submit(draw, *v) for v in self.variants]
        finally:
            sys.path.remove(hooks)

    def result(self) -> dict[tuple[str, bool], str]:
        """``(slug, phone)`` -> SVG of every variant, waiting for the workers."""
        if self.svgs is None:
            try:
                self.svgs = [future.result() for future in self.futures]
            finally:
                self.close()
        return dict(zip(self.variants, self.svgs, strict=True))

    def close(self):
        """Stop the workers; drawings not started are dropped."""
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None


def figure_keys(project_dir: Path) -> dict[str, str]:
    """Figure module -> cache key: the module's sources, what it imports."""
    keys = {}
    for module in figure_modules(project_dir):
        source = build_cache.module_path(module, project_dir).read_text()
        key = build_cache.artifact_key(
            source, project_dir, "figures", build_cache.DRAWN_THEME, name=module
        )
        keys[module] = key
    return keys


class FigureFiles:
    """Every figure's SVGs in both themes, for desktops and for phones.

    Made in `on_files`: what the cache (``.cache/figures/``, one entry per figure
    module) lacks starts drawing, and each figure's fields and each widget's
    attributes are published at once, for the macros, so pages build meanwhile
    and a page's ``figure()`` needs no figure module imported. `files` waits
    for the drawings (`on_env`, before MkDocs copies files into the site).
    """

    def __init__(self, project_dir: Path, cache_dir: Path):
        self.store = build_cache.Store(cache_dir)
        self.keys = figure_keys(project_dir)
        self.modules = {}
        for module, key in self.keys.items():
            if (hit := self.store.get(key)) is not None:
                self.modules[module] = json.loads(hit)
        self.missing = [module for module in self.keys if module not in self.modules]
        self.modules |= {m: build_cache.module_fields(m) for m in self.missing}
        self.modules = {module: self.modules[module] for module in self.keys}
        self.drawing = Drawing(self.missing)
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

    def files(self) -> dict[str, bytes]:
        """Site path -> SVG bytes; each dark SVG is its light one recoloured."""
        svgs = self.drawing.result()
        for module in self.missing:
            drawn = build_cache.module_json(self.modules[module], svgs)
            self.modules[module] = json.loads(self.store.put(self.keys[module], drawn))
        files = {}
        for figure in (f for m in self.modules.values() for f in m["figures"]):
            for phone, field in ((False, "svg"), (True, "svg_phone")):
                light = figure[field].encode()
                files[figure_path(figure["slug"], "light", phone)] = light
                files[figure_path(figure["slug"], "dark", phone)] = dark_variant(light)
        return files


def figure_files(project_dir: Path, cache_dir: Path) -> dict[str, bytes]:
    """Site path -> SVG bytes of every figure, drawn on cache miss (at once)."""
    return FigureFiles(project_dir, cache_dir).files()


def with_sizes(page_html: str, sizes: dict[str, tuple[int, int]]) -> str:
    """Give every figure ``<img>`` and ``<source>`` its width and height, so nothing
    shifts on load (the phone variant has another aspect ratio)."""

    def sized(match):
        width, height = sizes[f"figures/{match['name']}"]
        return f'{match[0]} width="{width}" height="{height}"'

    return FIGURE_IMG.sub(sized, page_html)


_figure_sizes: dict[str, tuple[int, int]] = {}
_drawing: list[tuple[FigureFiles, list[File]]] = []  # from on_files to on_env


def on_config(config):
    katex_dir(Path(config.config_file_path).parent)
    return config


def on_files(files, config):
    stop_drawing()  # an earlier build of this process (serve) that failed
    project_dir = Path(config.config_file_path).parent
    for src_uri, content in katex_files(katex_dir(project_dir)).items():
        files.append(File.generated(config, src_uri, content=content))
    figures = FigureFiles(project_dir, project_dir / ".cache" / "figures")
    pending = [File.generated(config, path, content=b"") for path in figures.paths]
    for file in pending:  # in the site's files now (links are checked), bytes later
        files.append(file)
    _drawing.append((figures, pending))
    return files


def on_env(env, config, files):
    figures, pending = _drawing.pop()
    drawn = figures.files()
    for file in pending:
        file.content_bytes = drawn[file.src_uri]
        _figure_sizes[file.src_uri] = svg_size(drawn[file.src_uri])
    return env


def on_post_page(output, page, config):
    return with_sizes(output, _figure_sizes)


def on_build_error(error):
    stop_drawing()


def stop_drawing():
    """Stop the workers of a build that ended between on_files and on_env."""
    while _drawing:
        _drawing.pop()[0].drawing.close()
