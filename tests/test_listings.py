"""Code on the pages, checked without a build: a listing shows the function that
matters, not a module. A section a page shows in the open is at most MAX_LINES
lines (a whole example script, MAX_SCRIPT_LINES) and carries no TeX: docstrings
are left out of listings by including `name` + `name-body`, the signature and the
body. Anything longer sits in a collapsed `??? note "Full source"` block, and no
listing is on three pages."""

import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 25
# A script shown above the output it printed is the demonstration itself, read top
# to bottom with its output; it may run longer than a function, not to a module.
MAX_SCRIPT_LINES = 40
PAGES = sorted((ROOT / "docs").rglob("*.md"))
INCLUDE = re.compile(
    r'^(?P<indent>\s*)--8<--\s+"(?P<path>[^":]+)(?::(?P<name>[\w-]+))?"'
)
FENCE = re.compile(r"^\s*```")
IMPORT = re.compile(r"^(import |from \S+ import |\s+\w+,$|\)$|#|$)")


def section_lines(path: str, name: str | None) -> list[str]:
    """The lines a reader sees for `path:name` (the whole file without a name)."""
    lines = (ROOT / path).read_text().splitlines()
    if name is not None:
        start = next(i for i, line in enumerate(lines) if f"[start:{name}]" in line)
        end = next(i for i, line in enumerate(lines) if f"[end:{name}]" in line)
        lines = lines[start + 1 : end]
    shown = [line for line in lines if "--8<-- [" not in line]
    while shown and not shown[-1].strip():
        shown.pop()
    return shown


def includes(page: Path):
    """(line number, path, name, collapsed) of every listing on `page`.

    A listing is an include in a fence a reader sees: `exec="on"` fences
    without `source=` show only the output. Collapsed: inside a `???` block.
    """
    fence = None
    lines = page.read_text().splitlines()
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            fence = None if fence is not None else line
            continue
        match = INCLUDE.match(line)
        if not match or fence is None:
            continue
        if 'exec="on"' in fence and "source=" not in fence:
            continue
        indent = len(match["indent"])
        above = (t for t in reversed(lines[: number - 1]) if t.strip())
        opener = next(
            t for t in above if len(t) - len(t.lstrip()) < indent or not indent
        )
        collapsed = indent > 0 and opener.lstrip().startswith("???")
        yield number, match["path"], match["name"], collapsed


LISTINGS = [(page, *item) for page in PAGES for item in includes(page)]


def where(page: Path, number: int) -> str:
    return f"{page.relative_to(ROOT)}:{number}"


@pytest.mark.parametrize(
    "page, number, path, name, collapsed",
    [item for item in LISTINGS if not item[4]],
    ids=[f"{where(i[0], i[1])}" for i in LISTINGS if not i[4]],
)
def test_an_open_listing_is_short_and_has_no_tex(page, number, path, name, collapsed):
    shown = section_lines(path, name)
    label = f"{path}:{name}" if name else path
    script = name is None and path.startswith("posenc_docs/examples/")
    assert len(shown) <= (MAX_SCRIPT_LINES if script else MAX_LINES), (
        f"{where(page, number)} shows {label}, {len(shown)} lines: show the part that "
        f'matters and put the rest in a ??? note "Full source" block'
    )
    tex = [line for line in shown if "$" in line]
    assert not tex, f"{where(page, number)}: {label} shows TeX: {tex[:2]}"


def is_imports(lines: list[str]) -> bool:
    return all(IMPORT.match(line) for line in lines)


def test_no_listing_is_on_three_pages():
    """Imports are exempt: a page's code must run as copied, so each page that
    shows a module's function also shows the lines importing what it uses."""
    pages = defaultdict(set)
    for page, _, path, name, _ in LISTINGS:
        pages[(path, name)].add(page.relative_to(ROOT).as_posix())
    repeated = {
        f"{path}:{name}": sorted(on)
        for (path, name), on in pages.items()
        if len(on) >= 3 and not is_imports(section_lines(path, name))
    }
    assert not repeated, repeated


def test_the_guards_see_the_listings():
    assert len(LISTINGS) > 100
    assert any(collapsed for *_, collapsed in LISTINGS)
    assert is_imports(section_lines("posenc_docs/sinusoidal.py", "setup"))
    assert not is_imports(section_lines("posenc_docs/sinusoidal.py", "encode-body"))


def test_a_signature_is_always_followed_by_its_body():
    """`name` alone would show a bare `def` line once `name-body` exists."""
    alone = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        lines = page.read_text().splitlines()
        for number, line in enumerate(lines):
            match = INCLUDE.match(line)
            if not match or not match["name"] or match["name"].endswith("-body"):
                continue
            body = f'--8<-- "{match["path"]}:{match["name"]}-body"'
            has_body = (
                f"[start:{match['name']}-body]" in (ROOT / match["path"]).read_text()
            )
            following = lines[number + 1].strip() if number + 1 < len(lines) else ""
            if has_body and following != body:
                alone.append(where(page, number + 1))
    assert not alone, alone
