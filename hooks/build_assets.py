"""MkDocs hook: adds KaTeX and every build-time figure to the site, in memory.

Nothing is written into ``docs/``. KaTeX comes from ``node_modules`` (``npm ci``);
figures are drawn by ``posenc_docs.figures`` in the light theme and cached under
``.cache/figures/``, each figure module by its own sources (``hooks/build_cache.py``),
so a build redraws only the figures whose code changed; each dark variant is its
light one recoloured (``spec.dark_variant``).
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

from posenc_docs.figures.spec import dark_variant, figure_path, svg_size

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


def render_all(modules: list[str]) -> list[bytes]:
    """Draw figure modules; many SVGs are spread over the cores, one figure
    variant per task, so one large module does not keep a core waiting."""
    variants = [v for module in modules for v in build_cache.figure_variants(module)]
    if len(variants) < 4:
        svgs = [build_cache.draw_variant(*variant) for variant in variants]
    else:
        svgs = draw_in_workers(variants)
    drawn = dict(zip(variants, svgs, strict=True))
    return [build_cache.module_json(module, drawn) for module in modules]


def draw_in_workers(variants: list[tuple[str, bool]]) -> list[str]:
    """`build_cache.draw_variant` of each variant, on every core."""
    context = multiprocessing.get_context("spawn")  # no fork after torch has threads
    workers = min(os.cpu_count() or 1, len(variants))
    sys.path.insert(0, str(Path(build_cache.__file__).parent))  # workers import it
    try:
        columns = zip(*variants, strict=True)  # slugs, phones
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            return list(pool.map(build_cache.draw_variant, *columns))
    finally:
        sys.path.remove(str(Path(build_cache.__file__).parent))


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


def drawn_modules(project_dir: Path, store: build_cache.Store) -> dict:
    """Every figure module drawn in the light theme; only the missing ones are
    drawn."""
    keys = figure_keys(project_dir)
    missing = [module for module, key in keys.items() if store.get(key) is None]
    for module, drawn in zip(missing, render_all(missing), strict=True):
        store.put(keys[module], drawn)
    return {module: json.loads(store.get(key)) for module, key in keys.items()}


def figure_files(project_dir: Path, cache_dir: Path) -> dict[str, bytes]:
    """Site path -> SVG bytes of every figure in both themes, for desktops and for
    phones; drawn on cache miss.

    Also publishes each figure's fields and each widget's attributes, for the
    macros, so that a page's ``figure()`` needs no figure module imported.
    """
    files, specs = {}, {}
    drawn = drawn_modules(project_dir, build_cache.Store(cache_dir))
    for module in drawn.values():
        for figure in module["figures"]:
            for phone, field in ((False, "svg"), (True, "svg_phone")):
                light = figure.pop(field).encode()
                files[figure_path(figure["slug"], "light", phone)] = light
                files[figure_path(figure["slug"], "dark", phone)] = dark_variant(light)
            specs[figure["slug"]] = SimpleNamespace(**figure)
        build_cache.WIDGET_ATTRIBUTES.update(module["widgets"])
    build_cache.FIGURE_SPECS.clear()
    build_cache.FIGURE_SPECS.update(specs)
    return files


def with_sizes(page_html: str, sizes: dict[str, tuple[int, int]]) -> str:
    """Give every figure ``<img>`` and ``<source>`` its width and height, so nothing
    shifts on load (the phone variant has another aspect ratio)."""

    def sized(match):
        width, height = sizes[f"figures/{match['name']}"]
        return f'{match[0]} width="{width}" height="{height}"'

    return FIGURE_IMG.sub(sized, page_html)


_figure_sizes: dict[str, tuple[int, int]] = {}


def on_config(config):
    katex_dir(Path(config.config_file_path).parent)
    return config


def on_files(files, config):
    project_dir = Path(config.config_file_path).parent
    generated = katex_files(katex_dir(project_dir))
    figures = figure_files(project_dir, project_dir / ".cache" / "figures")
    _figure_sizes.update({path: svg_size(svg) for path, svg in figures.items()})
    generated |= figures
    for src_uri, content in generated.items():
        files.append(File.generated(config, src_uri, content=content))
    return files


def on_post_page(output, page, config):
    return with_sizes(output, _figure_sizes)
