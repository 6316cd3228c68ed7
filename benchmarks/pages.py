"""What a reader downloads: gzip bytes and layout shift of every page of a built site.

Run ``python -m benchmarks.pages SITE_DIR`` (a site built by ``make build``). Each
page is loaded once in Chromium at 390 px in the light scheme; every response body
is gzip-compressed (level 6, as a static host would send it) and summed. CLS is the
sum of layout-shift entries without recent input, read once the network is quiet.
The browser tests import `measure_page` to keep the numbers from regressing.
"""

import gzip
import statistics
import sys
from pathlib import Path

# Layout shifts so far, read at once: a buffered observer's records are there to
# take as soon as it observes (a callback would come a task later, or never). Their
# sum, and each shift's time and what moved (its first words, top and height
# before and after), to say where a shift came from when there is one.
CLS_SCRIPT = """async () => {
  for (let i = 0; i < 2; i++) await new Promise(requestAnimationFrame);
  const observer = new PerformanceObserver(() => {});
  observer.observe({type: "layout-shift", buffered: true});
  const shifts = observer.takeRecords().filter(e => !e.hadRecentInput);
  observer.disconnect();
  const moved = ({node, previousRect: a, currentRect: b}) =>
    `${node ? node.nodeName + " " + (node.textContent || "").trim().slice(0, 30) : "?"}`
    + ` ${[a.y, a.height, b.y, b.height].map(Math.round)}`;
  return {total: shifts.reduce((total, e) => total + e.value, 0),
          shifts: shifts.map(e => [+e.value.toFixed(4), Math.round(e.startTime),
                                   e.sources.map(moved)])};
}"""


def measure_page(tab, url: str, known: dict | None = None) -> dict:
    """Load ``url`` in ``tab`` (a `GuardedPage`); gzip bytes, requests, CLS and shifts.

    The tab's cache is turned off (`GuardedPage.without_cache`): every byte a cold
    reader downloads is counted, lazy images included (scrolled to the end at the
    load event, then the network settles; settling before the scroll too gave the
    same bytes and CLS on all 45 pages, 0.13 s a page later).

    ``known`` (url -> gzip bytes), shared by the calls on one static site, spares
    reading and compressing again the bodies every page loads (stylesheets,
    scripts, fonts, the search index); each one is still requested and counted.
    """
    known = {} if known is None else known
    tab.without_cache()
    bodies = []

    def record(response):
        bodies.append(response)

    tab.page.on("response", record)
    tab.page.goto(url, wait_until="load")
    tab.page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    tab.settle()
    shifts = tab.page.evaluate(CLS_SCRIPT)
    tab.page.remove_listener("response", record)
    for response in bodies:
        if response.ok and response.url not in known:
            known[response.url] = len(gzip.compress(response.body(), 6))
    sizes = {r.url: known[r.url] for r in bodies if r.ok}
    return {
        "gzip": sum(sizes.values()),
        "requests": sizes,
        "cls": shifts["total"],
        "shifts": shifts["shifts"],  # [value, ms, [what moved...]] each
    }


def main(site_dir: str) -> None:
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.conftest import CHROMIUM_ARGS, guarded_page, serve  # as the tests

    root = Path(site_dir)
    pages = sorted(p.parent.relative_to(root) for p in root.rglob("index.html"))
    with serve(root) as base, sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        rows, known = [], {}
        for rel in pages:
            tab = guarded_page(browser, width=390)
            result = measure_page(tab, f"{base}/{rel.as_posix()}/", known)
            rows.append((rel.as_posix() or "home", result["gzip"], result["cls"]))
            tab.page.context.close()
        browser.close()
    for name, size, cls in sorted(rows, key=lambda r: -r[1]):
        print(f"{name:40s} {size / 1000:8.1f} KB gzip   CLS {cls:.3f}")
    sizes = [size / 1000 for _, size, _ in rows]
    median, largest, cls = statistics.median(sizes), max(sizes), max(r[2] for r in rows)
    print(f"\n{len(rows)} pages: gzip median {median:.1f} KB, max {largest:.1f} KB; ")
    print(f"worst CLS {cls:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
