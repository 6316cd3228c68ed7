"""What a reader downloads: gzip bytes and layout shift of every page of a built site.

Run ``python -m benchmarks.pages SITE_DIR`` (a site built by ``make build``). Each
page is loaded once in Chromium at 390 px in the light scheme; every response body
is gzip-compressed (level 6, as a static host would send it) and summed. CLS is the
sum of layout-shift entries without recent input, read after the page is idle.
The browser tests import `measure_page` to keep the numbers from regressing.
"""

import gzip
import statistics
import sys
from pathlib import Path

CLS_SCRIPT = """() => new Promise(resolve => {
  let total = 0;
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) if (!e.hadRecentInput) total += e.value;
  }).observe({type: "layout-shift", buffered: true});
  setTimeout(() => resolve(total), 400);
})"""


def measure_page(page, url: str) -> dict:
    """Load ``url`` in a Playwright ``page``; gzip bytes, requests and CLS.

    The page must not serve from a cache (a fresh context, or one with a route,
    which turns the cache off): every byte a cold reader downloads is counted.
    """
    bodies = []

    def record(response):
        bodies.append(response)

    page.on("response", record)
    page.goto(url, wait_until="networkidle")
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    page.wait_for_load_state("networkidle")
    cls = page.evaluate(CLS_SCRIPT)
    page.remove_listener("response", record)
    sizes = {r.url: len(gzip.compress(r.body(), 6)) for r in bodies if r.ok}
    return {"gzip": sum(sizes.values()), "requests": sizes, "cls": cls}


def main(site_dir: str) -> None:
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from conftest import serve  # the same loopback server the tests use

    root = Path(site_dir)
    pages = sorted(p.parent.relative_to(root) for p in root.rglob("index.html"))
    with serve(root) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        rows = []
        for rel in pages:
            context = browser.new_context(viewport={"width": 390, "height": 844})
            result = measure_page(context.new_page(), f"{base}/{rel.as_posix()}/")
            rows.append((rel.as_posix() or "home", result["gzip"], result["cls"]))
            context.close()
        browser.close()
    for name, size, cls in sorted(rows, key=lambda r: -r[1]):
        print(f"{name:40s} {size / 1000:8.1f} KB gzip   CLS {cls:.3f}")
    sizes = [size / 1000 for _, size, _ in rows]
    median, largest, cls = statistics.median(sizes), max(sizes), max(r[2] for r in rows)
    print(f"\n{len(rows)} pages: gzip median {median:.1f} KB, max {largest:.1f} KB; ")
    print(f"worst CLS {cls:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
