"""MkDocs hook: a lighter, more readable search index, fetched only when needed.

Search snippets carry no raw TeX (formulas become plain text), no notebook
prompts and no repeated API table headers, and API pages rank below the page
that teaches the same topic: Material weighs a title match 1000 times a text
match, so at a twentieth of the weight an API heading (a function's name) still
beats any body text, but never a teaching page's heading. Material fetches the
whole index on every first page load; the built site's copy of its bundle is
patched (one exact, version-pinned expression, or the build stops) to fetch it
when the reader first focuses search.
"""

import json
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

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
# Material 9.8.2's bundle: the index observable, built eagerly at start-up.
EAGER_INDEX = 'zi=document.forms.namedItem("search")?ks():tt'
# The same observable after the first focus inside the search form: fromEvent (h),
# take(1) (Ee), switchMap (b), shareReplay(1) (Z).
LAZY_INDEX = (
    'zi=document.forms.namedItem("search")?h(document.forms.namedItem("search"),'
    '"focusin").pipe(Ee(1),b(()=>ks()),Z(1)):tt'
)


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


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri.startswith("api/"):
        page.meta.setdefault("search", {}).setdefault("boost", API_BOOST)
    return markdown


def lazy_index_bundle(bundle: str) -> str:
    """Material's bundle with the index fetched on first focus of the search form."""
    if bundle.count(EAGER_INDEX) != 1:
        raise PluginError(
            "Material's bundle changed: the search-index expression to defer is not "
            "there once; update hooks/search_index.py for this Material version."
        )
    return bundle.replace(EAGER_INDEX, LAZY_INDEX)


def on_post_build(config):
    (bundle,) = (Path(config.site_dir) / "assets" / "javascripts").glob("bundle.*.js")
    bundle.write_text(lazy_index_bundle(bundle.read_text(encoding="utf-8")))
    bundle.with_name(bundle.name + ".map").unlink(missing_ok=True)  # no longer true
    index = Path(config.site_dir) / "search" / "search_index.json"
    data = json.loads(index.read_text(encoding="utf-8"))
    for doc in data["docs"]:
        doc["text"] = clean_text(doc["text"])
    index.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
