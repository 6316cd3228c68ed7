"""Shared fixtures: the built site (built once per run unless POSENC_SITE_DIR names
one) and a Chromium page that refuses every request leaving 127.0.0.1."""

import gc
import os
import re
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from functools import cache, partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parents[1]
# Each test worker holds torch, matplotlib and a browser driver: at Python's
# default thresholds the cyclic collector ran a full collection over that heap
# every ~70,000 allocations. The builds use the same setting (hooks/build_cache.py).
gc.set_threshold(10_000, 10, 10)
# transformers is imported by the tests that compare with it, each when it first
# needs it: nothing from the Hub, whichever file imports it first.
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # read when huggingface_hub loads


# Files first that need no built site, then the others, long ones first: xdist hands
# each file whole to a worker (--dist loadfile) in collection order
# (--no-loadscope-reorder; by default it sorts files by their number of tests). `make
# test` builds the site in the background meanwhile (POSENC_SITE_STATUS), so both
# workers have work while it builds, and they finish together.
# Durations in s (make test, headless shell, both workers busy), 2026-12-03.
SLOW_FIRST = [
    "test_figure_layout.py",  # 46, no site (while the site builds)
    "test_lab.py",  # 36, no site
    "test_hooks.py",  # 19, no site
    "test_pages_phone_light.py",  # 94
    "test_widgets.py",  # 65
    "test_browser.py",  # 56
    "test_reader.py",  # 46
    "test_pages_desktop_dark.py",  # 46
    "test_build_cache.py",  # 45
    "test_figures.py",  # 33
    "test_finding.py",  # 31
    "test_figure_pages.py",  # 15
    "test_site_build.py",  # 13
]


def needs_the_site(item) -> bool:
    """A build or browser test: it reads the built site."""
    return any(item.iter_markers("build")) or any(item.iter_markers("browser"))


def pytest_collection_modifyitems(items):
    """Files without build or browser tests first, then the rest; each group in
    SLOW_FIRST's order, then collection order."""
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    needing = {item.path for item in items if needs_the_site(item)}

    def order(item):
        return item.path in needing, rank.get(item.path.name, len(rank))

    items.sort(key=order)


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


def wait_for_the_build(status: Path, timeout_s: float = 900) -> None:
    """Wait for the build `make test` runs in the background: it writes its exit
    status to ``status`` and its output beside it (``.log``)."""
    deadline = time.monotonic() + timeout_s
    while not status.is_file():
        assert time.monotonic() < deadline, f"no build status in {status}"
        time.sleep(0.2)
    if (code := status.read_text().strip()) != "0":
        log = status.with_suffix(".log").read_text()
        pytest.fail(f"the strict build failed (exit {code}):\n{log[-4000:]}")


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory) -> Path:
    given = os.environ.get("POSENC_SITE_DIR")
    if status := os.environ.get("POSENC_SITE_STATUS"):
        wait_for_the_build(Path(status))
    if given and (Path(given) / "index.html").is_file():
        return Path(given)
    return build_site(tmp_path_factory.mktemp("site"))


@pytest.fixture(scope="session")
def html_pages(site_dir) -> list[Path]:
    """Every page of the site (not the 404 page), relative to the site root."""
    pages = sorted(p.relative_to(site_dir) for p in site_dir.rglob("index.html"))
    assert len(pages) >= 4, pages
    return pages


@cache
def page_soup(path: Path):
    """A built page, parsed once per worker (45 pages take 1.5 s): read it, never
    change it."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def figure_slugs(images) -> list[str]:
    """Slugs of a locator's figure ``<img>``s (``figures/<slug>-light.svg``)."""
    return [images.nth(i).get_attribute("src").rsplit("/", 1)[1][: -len("-light.svg")]
            for i in range(images.count())]  # fmt: skip


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves its directory, and axe-core at AXE_PATH for `axe_violations`."""

    def log_message(self, *args):
        pass

    def translate_path(self, path):
        return str(AXE) if path == AXE_PATH else super().translate_path(path)


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
            executable_path=chromium, headless=True, args=CHROMIUM_ARGS
        )
        yield b
        b.close()


# Every host but 127.0.0.1 fails to resolve, so a request leaving it is aborted by
# Chromium's network stack: the guard needs no request interception (a route), and
# so pages keep their HTTP cache, which Playwright turns off while a route exists
# (a third more browser CPU a load); GuardedPage.without_cache turns it off.
CHROMIUM_ARGS = [
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
]
IDLE_AFTER_TWO_FRAMES = """() => new Promise(resolve => requestAnimationFrame(() =>
  requestAnimationFrame(() => requestIdleCallback(resolve, { timeout: 1000 }))))"""
OFF_ORIGIN = re.compile(r"^(?!http://127\.0\.0\.1:|data:|blob:|about:)")


def origin(url: str) -> str:
    """``scheme://host:port`` of ``url``."""
    return re.match(r"https?://[^/]+", url)[0]


class GuardedPage:
    """A page of a browser launched with CHROMIUM_ARGS: its requests outside
    127.0.0.1 fail and are recorded in ``blocked``.

    ``requested`` lists every request the page made, those its HTTP cache answers
    included; ``settle()`` waits until none is in flight and the page is idle
    (Playwright's networkidle waits 500 ms). ``javascript`` says whether the
    page's context runs scripts.
    """

    def __init__(self, context, javascript: bool = True):
        self.javascript = javascript
        self.blocked, self.errors, self.requested = [], [], []
        self._in_flight, self._cdp = set(), None
        context.on("request", self._started)
        context.on("requestfinished", lambda r: self._in_flight.discard(r))
        context.on("requestfailed", lambda r: self._in_flight.discard(r))
        self.page = context.new_page()
        self.page.on("pageerror", lambda e: self.errors.append(f"pageerror: {e}"))
        self.page.on(
            "console",
            lambda m: m.type == "error" and self.errors.append(f"console: {m.text}"),
        )

    def _started(self, request):
        self.requested.append(request.url)
        self._in_flight.add(request)
        if OFF_ORIGIN.match(request.url):
            self.blocked.append(request.url)

    def without_cache(self) -> "GuardedPage":
        """Turn the page's HTTP cache off: each load fetches everything again."""
        if self._cdp is None:  # one session, its domain on, for the page's life
            self._cdp = self.page.context.new_cdp_session(self.page)
            self._cdp.send("Network.enable")  # the cache is off while it is on
            self._cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        return self

    def settle(self, timeout_ms: int = 30_000) -> None:
        """Wait until no request is in flight and none started while the page went
        through two frames and then idled: the scripts answering the last
        responses have run. (A timer set to fire later is not waited for.) Without
        scripts, until none has been in flight for 150 ms.

        It waited for 150 ms without a request after every load, 173 loads in
        `make test`: the browser tests took 186 s one after another, 161 s now.
        No request started in the 600 ms after this wait, on any of 123 loads."""
        deadline, started = time.monotonic() + timeout_ms / 1000, -1
        while self._in_flight or started != len(self.requested):
            assert time.monotonic() < deadline, f"still loading: {self._in_flight}"
            started = len(self.requested)
            if self.javascript:
                self.page.evaluate(IDLE_AFTER_TWO_FRAMES)
            else:
                self.page.wait_for_timeout(150)

    def navigate_instantly(self) -> "GuardedPage":
        """Let Material's instant navigation work on this loopback server.

        Material takes only the links its sitemap.xml lists, matched after giving
        each listed URL the page's scheme and host but not its port, so with the
        built sitemap (site_url's pages) every click here is a full page load.
        Served with the page's own origin, as ``mkdocs serve`` writes it, the
        sitemap matches.
        """

        def own_origin(route):
            response = route.fetch()
            body = re.sub(
                r"<loc>https?://[^/<]+",
                f"<loc>{origin(route.request.url)}",
                response.text(),
            )
            route.fulfill(response=response, body=body)

        self.page.route("**/sitemap.xml", own_origin)
        return self

    def open(self, url: str) -> "GuardedPage":
        """Go to ``url`` and wait for its load event and then a settled network."""
        self.page.goto(url, wait_until="load")
        self.settle()
        return self

    def reload(self) -> "GuardedPage":
        """Reload the page and wait as `open` does."""
        self.page.reload(wait_until="load")
        self.settle()
        return self


def guarded_page(browser, color_scheme="light", width=1280, javascript=True):
    """A `GuardedPage` in a fresh context of ``browser``; close its context after."""
    context = browser.new_context(
        color_scheme=color_scheme,
        viewport={"width": width, "height": 900},
        java_script_enabled=javascript,
    )
    return GuardedPage(context, javascript)


def mount_widget(page, name: str = "") -> None:
    """Scroll the page's widget (``data-widget=name``, if given) into view and wait
    until it is mounted: widgets mount once within a screen of the viewport."""
    selector = f".posenc-widget[data-widget{f'={name}' if name else ''}]"
    page.locator(selector).first.scroll_into_view_if_needed()
    page.wait_for_selector(f"{selector}[data-mounted=ready] .pw")


@pytest.fixture
def guarded(browser):
    def open_page(**options):
        tab = guarded_page(browser, **options)
        opened.append(tab.page.context)
        return tab

    opened = []
    yield open_page
    for context in opened:
        context.close()


AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
# A rule with an impact of its own gives each of its violations that impact
# (axe-core's _finalizeRuleResult): those below serious are not run.
AXE_RUN = """async () => {
  const rules = Object.fromEntries(axe._audit.rules
    .filter(r => ['minor', 'moderate'].includes(r.impact))
    .map(r => [r.id, { enabled: false }]));
  const result = await axe.run(document, { resultTypes: ['violations'], rules });
  return result.violations.filter(v => ['serious', 'critical'].includes(v.impact))
    .map(v => ({ id: v.id, impact: v.impact, help: v.help,
                 nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ')) }));
}"""


AXE_PATH = "/__tests__/axe.min.js"  # on every server `serve` starts


def axe_violations(page) -> list[dict]:
    """axe-core's serious and critical violations on a loaded Playwright page.

    axe is fetched from the page's own loopback server: given by path, its 0.5 MB
    went from Python through Playwright's driver on every call (5.1 s of the
    phone sweep's 45 pages, 2.5 s by URL)."""
    assert AXE.is_file(), "axe-core missing: run `npm ci`"
    page.add_script_tag(url=origin(page.url) + AXE_PATH)
    return page.evaluate(AXE_RUN)
