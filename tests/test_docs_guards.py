"""Guards on the Markdown sources: code comes from tested files, numbers from macros."""

import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").rglob("*.md"))
EXAMPLES = sorted((ROOT / "posenc_docs" / "examples").rglob("*.py"))
FENCE = re.compile(r"^\s*(```+|~~~+)(.*)$")
ARXIV_ID = r"(?i)arxiv:?\s*\d{4}\.\d{4,5}"  # an identifier, not a number
NOT_PROSE = [r"\{\{.*?\}\}", r"`[^`]*`", r"\$[^$]*\$", r"\]\([^)]*\)", ARXIV_ID]
SNIPPET = re.compile(r'^\s*--8<--\s+"([^"]+)"\s*$')


def fences(text: str):
    """Yield (info string, body lines, first line number) for each fenced block."""
    lines, i = text.splitlines(), 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        marker, start, body = opening.group(1), i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(marker):
            body.append(lines[i])
            i += 1
        yield opening.group(2).strip(), body, start
        i += 1


def prose_lines(text: str):
    """Lines outside fences, with macros, inline code, math and link targets removed."""
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            for pattern in NOT_PROSE:
                line = re.sub(pattern, "", line)
            yield number, line


def is_python(info: str) -> bool:
    return bool(re.match(r"\{?\.?(python|py|pycon)\b", info))


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_python_fences_only_include_tested_files(page):
    for info, body, line in fences(page.read_text()):
        if not is_python(info):
            continue
        code = [b for b in body if b.strip()]
        assert code, f"{page.name}:{line}: empty python fence"
        for entry in code:
            included = SNIPPET.match(entry)
            assert included, f"{page.name}:{line}: inline python: {entry!r}"
            file, _, section = included.group(1).partition(":")
            source = ROOT / file
            assert source.is_file(), f"{page.name}:{line}: no file {file}"
            if section:
                assert f"[start:{section}]" in source.read_text(), (page, section)


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_pasted_decimals_in_prose(page):
    pasted = [
        f"{page.name}:{n}: {line.strip()}"
        for n, line in prose_lines(page.read_text())
        if re.search(r"\d\.\d{3}", line)
    ]
    assert not pasted, "compute these with a macro:\n" + "\n".join(pasted)


def test_the_guards_can_fail():
    bad = "text\n```python\nprint(1)\n```\nIt is 3.5353 here.\n"
    info, body, _ = next(fences(bad))
    assert is_python(info) and not SNIPPET.match(body[0])
    assert any(re.search(r"\d\.\d{3}", line) for _, line in prose_lines(bad))
    ok = "A {{ fixed(x, 4) }}, `1.2345`, $3.14159$, arXiv 2108.12409, "
    ok += "[see](https://arxiv.org/abs/2108.12409)"
    ok += '\n```py\n--8<-- "a.py"\n```'
    assert not any(re.search(r"\d\.\d{3}", line) for _, line in prose_lines(ok))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_example_runs(example, capsys):
    runpy.run_path(str(example), run_name="__main__")
    assert capsys.readouterr().out.strip(), f"{example.name} printed nothing"
