"""Which of KaTeX's font files a page's prerendered math uses, read from KaTeX's CSS.

A browser fetches a font only when laid-out content needs it (text set in it, or
an inline box whose line it measures: every formula's own KaTeX_Main); a font that
arrives after the first frame reflows the text around it (a layout shift: on a loaded CI
machine, the ``\\left(`` of the worked example's first formula, set in KaTeX_Size2,
arrived late and moved the paragraph under it 26 px). Preloading every font a page
uses starts them with the stylesheet. This module resolves, as the browser's
cascade does, the family, weight and style of each piece of text in KaTeX's HTML
from the rules of KaTeX's own stylesheet (a new KaTeX needs no table here; one
whose font rules use CSS this does not read stops the build), and names the face
it lands on. A closed ``<details>`` is not laid out: its math is left out.
"""

import re

COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
RULE = re.compile(r"(?P<selectors>[^{}]+)\{(?P<body>[^{}]*)\}")
DECLARATION = re.compile(
    r"(?P<name>font(?:-family|-weight|-style)?)\s*:\s*(?P<value>[^;]+)"
)
FACE_SRC = re.compile(r"url\((?:fonts/)?(?P<stem>[\w-]+)\.woff2\)")
PROPERTIES = ("family", "weight", "style")
ROOT_STYLE = (None, "400", "normal")  # outside .katex: no KaTeX font
WEIGHTS = {"normal": "400", "bold": "700"}  # as numbers, as the minified CSS has them
VOID = {"area", "br", "col", "embed", "hr", "img", "input", "link", "meta", "wbr"}
TOKEN = re.compile(
    r"<(?P<end>/)?(?P<tag>[a-z][\w-]*)(?P<attrs>[^>]*)>|(?P<text>[^<]+)|<"
)
CLASS = re.compile(r'\bclass="([^"]*)"')
DETAILS = re.compile(r"<(?P<end>/)?details\b(?P<attrs>[^>]*)>")
OPEN = re.compile(r"(?:^|\s)open(?=[\s=>/]|$)")
SPACE = " \t\n\r\f"  # what CSS collapses; a no-break or zero-width space is text


def declarations(body: str) -> dict[str, str]:
    """The family, weight and style a rule body sets (the ``font`` shorthand too)."""
    found = {}
    for name, value in DECLARATION.findall(body):
        value = value.strip()
        if name == "font":  # "[style] [weight] size family, fallbacks": resets all
            words = value.split(",")[0].split()
            if not set(words[:-2]) <= {"normal", "italic", "bold"} or len(words) < 2:
                raise ValueError(
                    f"KaTeX's CSS: cannot read the font shorthand {value!r}"
                )
            found["family"] = words[-1].strip("\"'")
            found["style"] = "italic" if "italic" in words[:-2] else "normal"
            found["weight"] = "700" if "bold" in words[:-2] else "400"
        else:
            name, value = name.removeprefix("font-"), value.split(",")[0].strip("\"' ")
            found[name] = WEIGHTS.get(value, value) if name == "weight" else value
    return found


def compounds(selector: str) -> list[tuple[str, frozenset]]:
    """``.katex .a.b > span`` -> [(" ", {katex}), (" ", {a, b}), (">", {<span>})].

    Only classes, tags and the descendant and child combinators are read: any other
    selector syntax raises (a pseudo-class or attribute would be read wrong).
    """
    if re.search(r"[:\[#+~*]", selector):
        raise ValueError(f"KaTeX's CSS: cannot read the selector {selector.strip()!r}")
    parts, combinator = [], " "
    for token in selector.replace(">", " > ").split():
        if token == ">":
            combinator = ">"
            continue
        tag = [f"<{name}>" for name in re.findall(r"^\w+", token)]
        names = frozenset(re.findall(r"\.([\w-]+)", token) + tag)
        parts.append((combinator, names))
        combinator = " "
    return parts


def matches(parts: list, chain: list[frozenset]) -> bool:
    """Whether the element at the end of ``chain`` (its own and its ancestors'
    class names and tag, outermost first) matches the selector ``parts``."""
    if not parts[-1][1] <= chain[-1]:
        return False
    if len(parts) == 1:
        return True
    if parts[-1][0] == ">":
        return len(chain) > 1 and matches(parts[:-1], chain[:-1])
    return any(matches(parts[:-1], chain[:end]) for end in range(len(chain) - 1, 0, -1))


class Stylesheet:
    """KaTeX's font faces and the rules of its stylesheet that set a font."""

    def __init__(self, css: str):
        css = COMMENT.sub("", css)
        if re.search(r"@(?!font-face)", css):  # @media, @supports: rules not read
            raise ValueError("KaTeX's CSS: an at-rule other than @font-face")
        self.faces, rules = {}, []  # (family, weight, style) -> file stem
        for order, rule in enumerate(RULE.finditer(css)):
            found, selectors = declarations(rule["body"]), rule["selectors"].strip()
            if selectors.endswith("@font-face"):
                stem = FACE_SRC.search(rule["body"])["stem"]
                self.faces[tuple(found[name] for name in PROPERTIES)] = stem
            elif found:
                for selector in selectors.split(","):
                    parts = compounds(selector)
                    names = [name for _, names in parts for name in names]
                    tags = sum(name.startswith("<") for name in names)
                    rules.append(((len(names) - tags, tags, order), parts, found))
        self.rules = [(parts, found) for _, parts, found in sorted(rules)]
        self._check_rules()

    def _check_rules(self) -> None:
        """Raise unless every rule sets families, weights and styles the faces
        have: anything else a browser would resolve in ways not read here
        (inherit, !important, an unknown family)."""
        known = {
            name: {key[i] for key in self.faces} for i, name in enumerate(PROPERTIES)
        }
        for _, found in self.rules:
            for name, value in found.items():
                if value not in known[name]:
                    raise ValueError(f"KaTeX's CSS: cannot read font-{name}: {value}")

    def computed(self, chain: list[frozenset], inherited: tuple) -> tuple:
        """(family, weight, style) of the element at the end of ``chain``: the
        rules in order of specificity, then of the stylesheet, the last one wins."""
        won = dict(zip(PROPERTIES, inherited, strict=True))
        for parts, found in self.rules:
            if matches(parts, chain):
                won.update(found)
        return tuple(won[name] for name in PROPERTIES)

    def face(self, family: str, weight: str, style: str) -> str:
        """The file stem a browser picks for the style: the same style if the
        family has it, then the same weight if it has it (CSS font matching)."""
        faces = [key for key in self.faces if key[0] == family]
        faces = [key for key in faces if key[2] == style] or faces
        faces = [key for key in faces if key[1] == weight] or faces
        return self.faces[faces[0]]


def fonts_used(page_html: str, stylesheet: Stylesheet) -> list[str]:
    """KaTeX font files (stems, sorted) the math of ``page_html`` is set in.

    Each ``.katex`` element is walked tag by tag (KaTeX writes well-formed HTML),
    its elements' styles resolved once per chain of ancestors; the element's own
    face counts even if no text is set in it (its line is measured in it). KaTeX's
    hidden MathML copy (``.katex-mathml``) is skipped: the browser sets it in its
    own math font. So is the math of a closed ``<details>`` (`hidden_regions`).
    """
    used, known, position = set(), {}, 0
    hidden = hidden_regions(page_html)
    while (start := page_html.find('<span class="katex">', position)) >= 0:
        if any(begin <= start < end for begin, end in hidden):
            position = start + 1
            continue
        position = faces_of_formula(page_html, start, stylesheet, known, used)
    return sorted(used)


def faces_of_formula(page_html, start, stylesheet, known, used) -> int:
    """Add to ``used`` the faces of the ``.katex`` element at ``start`` (its own,
    and its text's); return where the element ends."""
    chain, styles = [], []  # open elements: names, style (None: not drawn)
    for token in TOKEN.finditer(page_html, start):
        if token["text"] is not None:
            if styles[-1] is not None and token["text"].strip(SPACE):
                used.add(stylesheet.face(*styles[-1]))
        elif token["end"]:
            del chain[-1], styles[-1]
        elif token["tag"] and token["tag"] not in VOID and token["attrs"][-1:] != "/":
            names = CLASS.search(token["attrs"])
            names = names[1].split() if names else []
            chain.append(frozenset([*names, f"<{token['tag']}>"]))
            styles.append(style_of(tuple(chain), styles, stylesheet, known))
            if len(chain) == 1:  # the .katex element itself
                used.add(stylesheet.face(*styles[0]))
        if not chain:
            return token.end()
    return len(page_html)


def style_of(chain: tuple, styles: list, stylesheet: Stylesheet, known: dict):
    """The style of the element at the end of ``chain``, whose parent's is
    ``styles[-1]``: None inside KaTeX's MathML; ``known`` keeps each chain's."""
    inherited = styles[-1] if styles else ROOT_STYLE
    if inherited is None or "katex-mathml" in chain[-1]:
        return None
    if chain not in known:  # the chain decides the style: KaTeX repeats chains
        known[chain] = stylesheet.computed(list(chain), inherited)
    return known[chain]


def hidden_regions(page_html: str) -> list[tuple[int, int]]:
    """(start, end) of what each closed ``<details>`` hides: from the end of its
    summary to its end tag. The browser lays none of it out, nor fetches its fonts
    (a reader who opens one gives input: a shift in the half second after it
    is not counted)."""
    regions, open_tags = [], []
    for tag in DETAILS.finditer(page_html):
        if not tag["end"]:
            open_tags.append((tag.end(), OPEN.search(tag["attrs"]) is not None))
        elif open_tags:
            start, shown = open_tags.pop()
            summary = page_html.find("</summary>", start, tag.start())
            if not shown:
                regions.append((start if summary < 0 else summary, tag.end()))
    return regions
