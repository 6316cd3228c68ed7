"""MkDocs hook: the widget modules ship minified (terser, from ``npm ci``).

``docs/javascripts/widgets/`` stays readable; only the copies in the built site are
minified, in one Node process per build, and only the files whose source or terser
version changed since a cached copy (``.cache/minify/``). Terser starts on the
sources in ``on_files``, in a thread, so it runs while the pages build; the built
site's copies are written from the cache in ``on_post_build``.
"""

import hashlib
import shutil
import subprocess
import tempfile
from pathlib import Path

import build_cache  # hooks/build_cache.py
from mkdocs.exceptions import PluginError

SCRIPT = Path(__file__).with_name("minify.mjs")
WIDGETS = "javascripts/widgets"


def minify_key(source: bytes, project_dir: Path) -> str:
    """Cache key of a minified file: its source, our options, terser's version."""
    terser = project_dir / "node_modules" / "terser" / "package.json"
    digest = hashlib.sha256(terser.read_bytes() + SCRIPT.read_bytes())
    return digest.hexdigest() + hashlib.sha256(source).hexdigest()


def minify_widgets(site_dir: Path, project_dir: Path, store) -> list[Path]:
    """Minify every ``.js`` under the site's widget folder, from the cache; return
    those terser ran on (`cache_minified`: the cache lacked them)."""
    files = sorted((site_dir / WIDGETS).glob("*.js"))
    keys = {path: minify_key(path.read_bytes(), project_dir) for path in files}
    missing = cache_minified(files, project_dir, store)
    for path, key in keys.items():
        path.write_bytes(store.get(key))
    return missing


def cache_minified(sources: list[Path], project_dir: Path, store) -> list[Path]:
    """Put the minified bytes of each source the cache lacks into it (terser runs
    on copies); return those sources."""
    keys = {path: minify_key(path.read_bytes(), project_dir) for path in sources}
    missing = [path for path, key in keys.items() if store.get(key) is None]
    if missing:
        with tempfile.TemporaryDirectory() as scratch:
            copies = [Path(scratch) / path.name for path in missing]
            for path, copy in zip(missing, copies, strict=True):
                shutil.copyfile(path, copy)
            run_terser(copies, project_dir)
            for path, copy in zip(missing, copies, strict=True):
                store.put(keys[path], copy.read_bytes())
    return missing


def run_terser(files: list[Path], project_dir: Path) -> None:
    """Minify ``files`` in place, in one Node process."""
    result = subprocess.run(
        ["node", str(SCRIPT), *map(str, files)],
        cwd=project_dir,
        capture_output=True,
        text=True,
    )
    if result.returncode:
        raise PluginError(f"minifying the widgets failed:\n{result.stderr[-2000:]}")


_minifying = []  # the build's cache_minified, running


def store_of(config):
    return build_cache.Store(build_cache.cache_dir(config) / "minify")


def on_files(files, config):
    project_dir = Path(config.config_file_path).parent
    sources = sorted((Path(config.docs_dir) / WIDGETS).glob("*.js"))
    call = (cache_minified, sources, project_dir, store_of(config))
    _minifying.extend(build_cache.in_background(call))
    return files


def on_post_build(config):
    _minifying.pop().result()  # a terser error is raised here
    project_dir = Path(config.config_file_path).parent
    minify_widgets(Path(config.site_dir), project_dir, store_of(config))


def on_build_error(error):
    while _minifying:
        _minifying.pop().exception()  # waited for; the build has failed already
