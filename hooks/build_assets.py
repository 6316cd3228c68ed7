"""MkDocs hook: adds KaTeX and every build-time figure to the site, in memory.

Nothing is written into ``docs/``. KaTeX comes from ``node_modules`` (``npm ci``);
figures are drawn by ``posenc_docs.figures`` and cached on disk under ``.cache/``
by a hash of their inputs, so ``mkdocs serve`` redraws only what changed.
"""

import hashlib
import json
import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from itertools import product
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from posenc_docs.figures.spec import THEMES, figure_path, svg_size

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


def inputs_digest(project_dir: Path) -> str:
    """Hash of everything a figure can depend on: package files and matplotlib."""
    import matplotlib
    import numpy

    digest = hashlib.sha256(f"{matplotlib.__version__} {numpy.__version__}".encode())
    for path in sorted((project_dir / "posenc_docs").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.as_posix().encode() + path.read_bytes())
    return digest.hexdigest()


def render_all(jobs: list[tuple[str, str, bool]]) -> list[bytes]:
    """Draw ``(slug, theme, phone)`` jobs; many jobs are spread over the cores."""
    from posenc_docs.figures import render

    if len(jobs) < 4:
        return [render(*job) for job in jobs]
    context = multiprocessing.get_context("spawn")  # no fork after torch has threads
    workers = min(os.cpu_count() or 1, len(jobs))
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return list(pool.map(render, *zip(*jobs, strict=True)))


def figure_files(project_dir: Path, cache_dir: Path) -> dict[str, bytes]:
    """Site path -> SVG bytes of every figure in both themes, for desktops and for
    phones; drawn on cache miss."""
    from posenc_docs.figures import FIGURES

    sources = inputs_digest(project_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    cached = {}
    for spec in FIGURES:
        for job in product([spec.slug], THEMES, (False, True)):
            key = json.dumps([sources, spec.params, spec.phone_params, *job])
            digest = hashlib.sha256(key.encode()).hexdigest()
            cached[job] = cache_dir / f"{digest}.svg"
    missing = [job for job, path in cached.items() if not path.is_file()]
    for job, svg in zip(missing, render_all(missing), strict=True):
        cached[job].write_bytes(svg)
    return {figure_path(*job): path.read_bytes() for job, path in cached.items()}


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
