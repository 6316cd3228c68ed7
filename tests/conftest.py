"""Shared fixtures: the built site (built once per run unless POSENC_SITE_DIR names
one) and a Chromium page that refuses every request leaving 127.0.0.1."""

import os
import subprocess
import sys
import threading
from contextlib import contextmanager
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def build_site(destination: Path, cwd: Path = ROOT) -> Path:
    """Strict build of ``cwd`` into ``destination``; a failure shows the build log."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(cwd)}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", destination],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return destination


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory) -> Path:
    given = os.environ.get("POSENC_SITE_DIR")
    if given and (Path(given) / "index.html").is_file():
        return Path(given)
    return build_site(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="session")
def html_pages(site_dir) -> list[Path]:
    """Every page of the site (not the 404 page), relative to the site root."""
    pages = sorted(p.relative_to(site_dir) for p in site_dir.rglob("index.html"))
    assert len(pages) >= 4, pages
    return pages


def figure_slugs(images) -> list[str]:
    """Slugs of a locator's figure ``<img>``s (``figures/<slug>-light.svg``)."""
    return [images.nth(i).get_attribute("src").rsplit("/", 1)[1][: -len("-light.svg")]
            for i in range(images.count())]  # fmt: skip


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextmanager
def serve(directory: Path, handler=QuietHandler):
    """Serve ``directory`` on 127.0.0.1 (a free port) while the block runs."""
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), partial(handler, directory=str(directory))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


@pytest.fixture(scope="session")
def site_url(site_dir):
    with serve(site_dir) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    playwright = pytest.importorskip("playwright.sync_api")
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=chromium,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
                "--disable-dev-shm-usage",
            ],
        )
        yield b
        b.close()


class GuardedPage:
    """A page whose requests outside 127.0.0.1 are aborted and recorded."""

    def __init__(self, context):
        self.blocked, self.errors, self.requested = [], [], []
        context.route("**/*", self._guard)
        self.page = context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on(
            "console",
            lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"),
        )

    def _guard(self, route):
        url = route.request.url
        self.requested.append(url)
        if url.startswith(("http://127.0.0.1:", "data:", "blob:", "about:")):
            route.continue_()
        else:
            self.blocked.append(url)
            route.abort()


@pytest.fixture
def guarded(browser):
    def open_page(color_scheme="light", width=1280, javascript=True):
        context = browser.new_context(
            color_scheme=color_scheme,
            viewport={"width": width, "height": 900},
            java_script_enabled=javascript,
        )
        opened.append(context)
        return GuardedPage(context)

    opened = []
    yield open_page
    for context in opened:
        context.close()
