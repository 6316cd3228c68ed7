"""MkDocs hook: a lighter, more readable search index, fetched only when needed.

Search snippets carry no raw TeX (formulas become plain text), no notebook
prompts and no repeated API table headers, and API pages rank below the page
that teaches the same topic: Material weighs a title match 1000 times a text
match, so at a twentieth of the weight an API heading (a function's name) still
beats any body text, but never a teaching page's heading. The index is fetched
when the reader first focuses search (`hooks/material_bundle.py`).

A page's entries are remembered by what they are made of, so a rebuild (``mkdocs
serve``) parses only the pages whose HTML, table of contents or metadata changed.
"""

import copy
import hashlib
import json
import re
from functools import wraps
from pathlib import Path

from material.plugins.search.plugin import SearchIndex

GREEK = "alpha beta gamma delta epsilon theta lambda mu pi rho sigma tau phi omega"
LETTERS = dict(zip(GREEK.split(), "αβγδεθλμπρστφω", strict=True))
FORMULA = re.compile(r"\\\((.*?)\\\)|\\\[(.*?)\\\]|\$\$(.*?)\$\$|\$([^$]+?)\$", re.S)
COMMAND = re.compile(r"\\([A-Za-z]+)")
BOILERPLATE = re.compile(
    r"\s*(?:Name\s+)?Type\s+Description(?:\s+Default)?(?=\s|<)|In\s*\[\s*\d*\s*\]:"
)
CODE_BLOCK = re.compile(r"<pre>.*?</pre>", re.DOTALL)
SPHINX_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|obj|data|exc|const):")
API_BOOST = 0.05


def plain_formula(tex: str) -> str:
    """TeX as readable plain text: Greek letters kept, other markup dropped."""
    text = COMMAND.sub(lambda m: LETTERS.get(m[1], " "), tex)
    text = re.sub(r"[{}^_\\&]", "", text)
    return re.sub(r"\s+", " ", text).strip()


def clean_text(text: str) -> str:
    """One entry's text without code listings, TeX, prompts, table headers, roles."""
    text = SPHINX_ROLE.sub("", CODE_BLOCK.sub("", text))
    text = FORMULA.sub(lambda m: plain_formula(next(g for g in m.groups() if g)), text)
    return BOILERPLATE.sub("", text)


def toc_outline(items) -> list:
    """A table of contents as plain data: each item's id, URL, title, children."""
    return [[i.id, i.url, i.title, toc_outline(i.children)] for i in items]


def entries_key(index: SearchIndex, page) -> str:
    """Everything Material's entries for ``page`` are made of."""
    parts = [index.config, page.url, page.title, page.meta, toc_outline(page.toc)]
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=repr).encode())
    digest.update(page.content.encode())
    return digest.hexdigest()


def remembered(add_entry, before: dict, now: dict):
    """``SearchIndex.add_entry_from_context`` answering by key from the entries of
    the build ``before`` (or of this one), keeping what this build uses in ``now``."""

    @wraps(add_entry)
    def add_remembered(index: SearchIndex, page):
        key = entries_key(index, page)
        if key not in now and key in before:
            now[key] = before[key]
        if key not in now:
            start = len(index.entries)
            add_entry(index, page)
            now[key] = copy.deepcopy(index.entries[start:])
            return
        index.entries.extend(copy.deepcopy(now[key]))

    return add_remembered


_builds: list[dict] = [{}]  # page key -> entries, by build of this process (serve)


def on_config(config):
    _builds[:] = [_builds[-1], {}]  # only the last build's entries are kept
    add_entry = SearchIndex.add_entry_from_context
    add_entry = getattr(add_entry, "__wrapped__", add_entry)  # serve: wrap once
    SearchIndex.add_entry_from_context = remembered(add_entry, *_builds)
    return config


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri.startswith("api/"):
        page.meta.setdefault("search", {}).setdefault("boost", API_BOOST)
    return markdown


def on_post_build(config):
    index = Path(config.site_dir) / "search" / "search_index.json"
    data = json.loads(index.read_text(encoding="utf-8"))
    for doc in data["docs"]:
        doc["text"] = clean_text(doc["text"])
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    index.write_text(text, encoding="utf-8")  # whatever the locale says
