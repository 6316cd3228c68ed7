"""The built API pages read as reference text: docstrings rendered as Markdown with
their math typeset, no reStructuredText left over, one heading per object."""

import re
from collections import Counter

import pytest
from bs4 import BeautifulSoup

from tests.test_layout import PUBLIC

pytestmark = pytest.mark.build

ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|obj|ref|exc):`?")


def article(site_dir, name):
    html = (site_dir / "api" / name / "index.html").read_text()
    return BeautifulSoup(html, "html.parser").select_one("article")


def visible_text(node) -> str:
    """The article's text with the typeset math taken out (KaTeX keeps the TeX
    source in an annotation, which is not shown)."""
    for math in node.select(".katex, .katex-display"):
        math.decompose()
    for anchor in node.select("a.headerlink"):
        anchor.decompose()
    return node.get_text()


@pytest.mark.parametrize("name", PUBLIC)
def test_api_page_shows_no_roles_double_backticks_or_raw_tex(site_dir, name):
    text = visible_text(article(site_dir, name))
    assert not ROLE.findall(text), f"api/{name}: Sphinx roles {ROLE.findall(text)}"
    assert "``" not in text, f"api/{name}: literal double backticks"
    raw = re.findall(r".{0,30}(?:\$|\\(?:frac|theta|sqrt|ln|pi)\b).{0,30}", text)
    assert not raw, f"api/{name}: TeX left untypeset: {raw[:3]}"


@pytest.mark.parametrize("name", PUBLIC)
def test_no_docstring_line_becomes_a_quote(site_dir, name):
    """A wrapped docstring line that starts with '>' ("> num_buckets/4") turns
    into a Markdown quote."""
    quotes = [
        q.get_text(" ", strip=True) for q in article(site_dir, name)("blockquote")
    ]
    assert not quotes, f"api/{name}: docstring text rendered as a quote: {quotes}"


@pytest.mark.parametrize("name", PUBLIC)
def test_api_page_math_is_typeset(site_dir, name):
    """Every module states its formulas in Notes, so every page has math."""
    assert article(site_dir, name).select(".katex"), f"api/{name}: no math"


@pytest.mark.parametrize("name", PUBLIC)
def test_api_page_has_no_duplicated_heading(site_dir, name):
    headings = [  # text as shown: no space where a <wbr> splits a text node
        " ".join("".join(h.strings).split()).removesuffix("¶").strip()
        for h in article(site_dir, name).select("h1, h2, h3, h4, h5, h6")
    ]
    repeated = [h for h, n in Counter(headings).items() if n > 1]
    assert not repeated, f"api/{name}: {repeated}"
    assert headings[0] == f"posenc_docs.{name}"


@pytest.mark.parametrize("name", PUBLIC)
def test_api_page_title_breaks_after_the_package_on_a_phone(site_dir, name):
    """The title is one code word wider than a phone: without a break opportunity
    after the dot it broke inside the module name ("posenc_docs.sinusoida" / "l")."""
    code = article(site_dir, name).select_one("h1 code")
    assert str(code) == f"<code>posenc_docs.<wbr/>{name}</code>", str(code)


@pytest.mark.parametrize("name", PUBLIC)
def test_formulas_are_not_markdown_emphasis(site_dir, name):
    """`0.1*mu*ln(s)` renders as 0.1<em>mu</em>ln(s): emphasis glued to a digit or
    letter on either side is a formula that lost its stars."""
    glued = []
    for em in article(site_dir, name).select("em, strong"):
        before, after = em.previous_sibling, em.next_sibling
        left = isinstance(before, str) and re.search(r"[\w)]$", before)
        right = isinstance(after, str) and re.match(r"[\w(]", after)
        if left or right:
            glued.append(f"{before!s:.15}<em>{em.get_text()}</em>{after!s:.15}")
    assert not glued, f"api/{name}: {glued}"


@pytest.mark.parametrize("name", PUBLIC)
def test_api_sections_are_lists_a_phone_reads_without_scrolling(site_dir, name):
    """Parameters, returns and raises are lists (mkdocstrings' list style): each
    entry's name, type, default and description on one line that wraps. As
    four-column tables they scrolled sideways at 390 px, the description squeezed
    into a narrow column."""
    page = article(site_dir, name)
    titles = page.select(".doc-section-title")
    assert titles, f"api/{name}: no docstring sections"
    for title in titles:
        section = title.find_parent("p").find_next_sibling()
        assert section.name == "ul", f"api/{name}: {title.text} is a {section.name}"
    assert not page.select("table .doc-section-item"), f"api/{name}: a table"


@pytest.mark.parametrize("name", PUBLIC)
def test_every_torch_twin_links_the_function_it_twins(site_dir, name):
    """A torch twin's docstring says "same arguments": the name it points at is a
    link to that function on the same page, for a reader who arrives from search."""
    page = article(site_dir, name)
    twins = [p for p in page.select("p") if p.get_text().startswith("Torch twin of")]
    for text in twins:
        link = text.find("a")
        assert link is not None, f"api/{name}: {text.get_text()[:60]}"
        target = link["href"].removeprefix("#")
        assert page.find(id=target) is not None, f"api/{name}: {link['href']}"
