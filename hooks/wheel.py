"""MkDocs hook: the package's wheel in the site, and a pointer to the Install page.

The wheel is built by ``python -m build --no-isolation`` (hatchling, pinned in
``requirements.lock``) with a fixed ``SOURCE_DATE_EPOCH``, so two builds give the
same bytes, and added at ``posenc_docs.pages.install.WHEEL_PATH`` in memory, like
the figures: nothing is written into ``docs/``. It is cached under ``.cache/wheel/``
by a hash of what goes into it. A page whose rendered code imports ``posenc_docs``
gets one line pointing at the Install page.

``python hooks/wheel.py DIR`` (``make dist``) writes the sdist and the wheel to DIR.
"""

import hashlib
import html
import os
import re
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import build_cache  # hooks/build_cache.py
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from posenc_docs.pages.install import WHEEL, WHEEL_PATH

SOURCE_DATE_EPOCH = "1767225600"  # 2026-01-01 00:00 UTC: every zip entry's time
# Everything hatchling reads: the project, the readme, the licence it copies into
# the wheel, and .gitignore, whose patterns leave files out.
WHEEL_INPUTS = ["pyproject.toml", "PACKAGE.md", "LICENSE", ".gitignore", "posenc_docs"]
INSTALL_PAGE = "install.md"
PRE = re.compile(r"<pre[^>]*>(.*?)</pre>", re.DOTALL)
TAG = re.compile(r"<[^>]+>")
IMPORTS_PACKAGE = re.compile(r"^\s*(?:from|import)\s+posenc_docs\b", re.MULTILINE)


def build_dist(project_dir: Path, out_dir: Path, *formats: str) -> list[Path]:
    """Build ``formats`` ("sdist", "wheel"; none: sdist, then the wheel from it)."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH}
    command = [sys.executable, "-m", "build", "--no-isolation", "--outdir", out_dir]
    command += [f"--{name}" for name in formats] + [project_dir]
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        log = (result.stdout + result.stderr)[-3000:]
        raise PluginError(f"building the package failed:\n{log}")
    return sorted(Path(out_dir).iterdir())


def wheel_digest(project_dir: Path) -> str:
    """Hash of the files the wheel is built from, the backend and the timestamp."""
    digest = hashlib.sha256(
        f"{metadata.version('hatchling')} {SOURCE_DATE_EPOCH}".encode()
    )
    for name in WHEEL_INPUTS:
        top = project_dir / name
        for path in sorted([top, *top.rglob("*")] if top.is_dir() else [top]):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(project_dir).as_posix().encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def wheel_files(project_dir: Path, cache_dir: Path) -> dict[str, bytes]:
    """Site path -> bytes of the package's wheel; built on a cache miss."""
    cached = cache_dir / f"{wheel_digest(project_dir)}.whl"
    if not cached.is_file():
        cache_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache_dir) as tmp:
            built = build_dist(project_dir, Path(tmp), "wheel")
            if [p.name for p in built] != [WHEEL]:
                raise PluginError(f"expected {WHEEL}, the build made {built}")
            built[0].replace(cached)
    return {WHEEL_PATH: cached.read_bytes()}


def imports_package(page_html: str) -> bool:
    """Whether a code block of the rendered page imports ``posenc_docs``."""
    blocks = (html.unescape(TAG.sub("", block)) for block in PRE.findall(page_html))
    return any(IMPORTS_PACKAGE.search(text) for text in blocks)


def with_install_pointer(page_html: str, install_url: str) -> str:
    """The page with one line linking the Install page, under its first heading."""
    pointer = (
        f'<p class="posenc-install">The code on this page imports '
        f'<code>posenc_docs</code>: <a href="{install_url}">install it from this '
        "site</a>.</p>"
    )
    head, found, rest = page_html.partition("</h1>")
    return f"{head}{found}\n{pointer}{rest}" if found else pointer + page_html


_building = []  # (the wheel's future, its File) from on_files to on_env


def on_files(files, config):
    """Build the wheel in the background; its File is in the site's files now."""
    project_dir = Path(config.config_file_path).parent
    call = (wheel_files, project_dir, build_cache.cache_dir(config) / "wheel")
    (future,) = build_cache.in_background(call)
    wheel = File.generated(config, WHEEL_PATH, content=b"")  # bytes in on_env
    files.append(wheel)
    _building.append((future, wheel))
    return files


def on_env(env, config, files):
    future, wheel = _building.pop()
    wheel.content_bytes = future.result()[WHEEL_PATH]  # a build error is raised here
    return env


def on_build_error(error):
    while _building:
        _building.pop()[0].exception()  # waited for; the build has failed already


def on_page_content(page_html, page, config, files):
    if page.file.src_uri == INSTALL_PAGE or not imports_package(page_html):
        return page_html
    install = files.get_file_from_path(INSTALL_PAGE)
    return with_install_pointer(page_html, install.url_relative_to(page.file))


if __name__ == "__main__":
    for path in build_dist(Path(__file__).resolve().parents[1], Path(sys.argv[1])):
        print(path, f"{path.stat().st_size:,} bytes")
