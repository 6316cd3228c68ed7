"""Lighthouse mobile performance and accessibility of a built site, page by page.

Run ``make lighthouse`` (or ``python -m benchmarks.lighthouse SITE_DIR [PAGE ...]``).
The site is served on 127.0.0.1 with gzip, as a static host would send it, and
Lighthouse 12.2.3 (``npm ci``) drives the system Chromium with its default mobile
settings (simulated slow 4G, 4x CPU slowdown). One run of a page can differ from
the next by 15 points on this 2-core machine (whether Material's script ran before
or after the first paint moves FCP and TBT), so ``LIGHTHOUSE_RUNS`` (default 3)
runs go round-robin over the pages and each line shows the median and the range.
"""

import gzip
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from conftest import QuietHandler, serve  # noqa: E402  (the tests' loopback server)

LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
PAGES = [
    "",
    "part1/formula/",
    "part1/picture/",
    "part1/clocks/",
    "part2/04-rope/",
    "part2/07-context-extension/",
    "part2/pitfalls/",
    "part3/windows/",
    "notebooks/four_methods/",
    "lab/",
    "api/rope/",
]


COMPRESSED = (".html", ".css", ".js", ".json", ".svg", ".xml", ".py", ".txt")


class GzipHandler(QuietHandler):
    """Static files, text types gzip-compressed when the client accepts it."""

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        wants = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (wants and path.suffix in COMPRESSED and path.is_file()):
            return super().send_head()
        body = gzip.compress(path.read_bytes(), 6)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)


def scores(url: str, chromium: str) -> dict:
    """Performance and accessibility (0-100) of ``url``, its CLS, TBT and FCP."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        subprocess.run(
            [str(LIGHTHOUSE), url, "--quiet", "--output=json",
             f"--output-path={report}", "--only-categories=performance,accessibility",
             "--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
            check=True, env={**os.environ, "CHROME_PATH": chromium},
        )  # fmt: skip
        data = json.loads(report.read_text())
    categories, audits = data["categories"], data["audits"]
    return {
        "performance": round(categories["performance"]["score"] * 100),
        "accessibility": round(categories["accessibility"]["score"] * 100),
        "cls": audits["cumulative-layout-shift"]["numericValue"],
        "tbt": audits["total-blocking-time"]["numericValue"],
        "fcp": audits["first-contentful-paint"]["numericValue"],
    }


def summary(runs: list[dict]) -> str:
    """One page's runs: median (min-max) performance, worst accessibility and CLS,
    median TBT and FCP."""
    perf = [r["performance"] for r in runs]
    line = f"performance {statistics.median(perf):5.1f} ({min(perf)}-{max(perf)})   "
    line += f"accessibility {min(r['accessibility'] for r in runs):3d}   "
    line += f"CLS {max(r['cls'] for r in runs):.3f}   "
    line += f"TBT {statistics.median(r['tbt'] for r in runs):5.0f} ms   "
    return line + f"FCP {statistics.median(r['fcp'] for r in runs):5.0f} ms"


def main(site_dir: str, pages: list[str]) -> None:
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    repeats = int(os.environ.get("LIGHTHOUSE_RUNS", "3"))
    pages = pages or PAGES
    runs = {page: [] for page in pages}
    with serve(Path(site_dir), GzipHandler) as base:
        for _ in range(repeats):  # round-robin: a slow spell hits every page
            for page in pages:
                runs[page].append(scores(f"{base}/{page}", chromium))
    print(f"Lighthouse mobile, {repeats} runs per page")
    for page in pages:
        print(f"{page or 'home':30s} {summary(runs[page])}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
