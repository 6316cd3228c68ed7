"""The layout of the repository, enforced without a build.

The top of ``posenc_docs/`` is the library; page support, figures, examples and the
lab sit below it. Everything marked for a page is on a page.
"""

import ast
import re
import sys
from pathlib import Path

import pytest

from posenc_docs.figures import FIGURES, WIDGETS, widget_attributes

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "posenc_docs"
LIBRARY = sorted(PACKAGE.glob("*.py"))  # __init__, _checks and the schemes
PUBLIC = [p.stem for p in LIBRARY if not p.stem.startswith("_")]
BELOW = ("pages", "figures", "examples", "lab")
DOCS_TEXT = "\n".join(p.read_text() for p in sorted((ROOT / "docs").rglob("*.md")))
DOCS_TEXT += "\n".join(p.read_text() for p in sorted((ROOT / "docs").rglob("*.py")))
INCLUDED = set(re.findall(r'--8<--\s+"([^"]+)"', DOCS_TEXT))
# A notebook page runs an example by its path and shows what it prints.
NOTEBOOKS_TEXT = "".join(
    p.read_text() for p in (ROOT / "docs" / "notebooks").glob("*.py")
)
INCLUDED |= {
    f"posenc_docs/{path}"
    for path in re.findall(r'"(examples/[\w/]+\.py)"', NOTEBOOKS_TEXT)
}
MARKER = re.compile(r"--8<-- \[start:([\w-]+)\]")
MARKED = sorted(p for p in PACKAGE.rglob("*.py") if MARKER.search(p.read_text()))


def imported_modules(path: Path):
    """Every module name ``path`` imports (absolute names only)."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("module", LIBRARY, ids=lambda p: p.name)
def test_the_library_imports_only_stdlib_numpy_torch_and_itself(module):
    allowed = set(sys.stdlib_module_names) | {"numpy", "torch", "posenc_docs"}
    for name in imported_modules(module):
        top, *rest = name.split(".")
        assert top in allowed, f"{module.name} imports {name}"
        if top == "posenc_docs" and rest:
            assert rest[0] not in BELOW, f"{module.name} imports {name}"
            assert (PACKAGE / f"{rest[0]}.py").is_file(), f"{module.name}: {name}"


def test_every_library_module_has_an_api_page_and_every_page_a_module():
    pages = {p.stem for p in (ROOT / "docs" / "api").glob("*.md")}
    assert pages == {*PUBLIC, "index"}  # index: the package, its policy
    assert "::: posenc_docs\n" in (ROOT / "docs" / "api" / "index.md").read_text()
    for name in PUBLIC:
        text = (ROOT / "docs" / "api" / f"{name}.md").read_text()
        assert f"::: posenc_docs.{name}" in text, name


@pytest.mark.parametrize("source", MARKED, ids=rel)
def test_every_marked_section_is_included_by_a_page(source):
    sections = MARKER.findall(source.read_text())
    unused = [s for s in sections if f"{rel(source)}:{s}" not in INCLUDED]
    assert not unused, f"{rel(source)}: remove the markers of {unused}"


@pytest.mark.parametrize(
    "example", sorted((PACKAGE / "examples").rglob("*.py")), ids=rel
)
def test_every_example_is_on_a_page(example):
    assert rel(example) in INCLUDED


def test_every_figure_is_on_a_page():
    shown = set(re.findall(r'figure\("([^"]+)"\)', DOCS_TEXT))
    assert {spec.slug for spec in FIGURES} == shown


@pytest.mark.parametrize("name", sorted(WIDGETS))
def test_widget_start_values_come_from_the_fallback_figures(name):
    # the page writes the data-* attributes with the macro, never by hand
    assert f'{{{{ widget_attributes("{name}") }}}}' in DOCS_TEXT
    assert f'data-widget="{name}"' not in DOCS_TEXT
    attributes = dict(re.findall(r'data-([\w-]+)="([^"]*)"', widget_attributes(name)))
    assert attributes.pop("widget") == name
    assert set(attributes) == set(WIDGETS[name]())
