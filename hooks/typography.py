"""MkDocs hook: short phrases that a line must not split stay whole.

On a 390 px phone a line broke inside "d = 8" (the worked example's title, "= 8"
alone on the next line), inside a range such as "(10.01–10.22)" (every cell of the
lab's tables, at desktop width too) and inside short inline code such as `--help`
("--" / "help"). In the text of a page's body, outside ``<pre>``, ``<code>``,
``<script>``, ``<style>``, ``<svg>``, ``<textarea>``, KaTeX's formulas and the source
text a notebook cell's copy button copies (mkdocs-jupyter's hidden div), each such
phrase goes into a ``posenc-nobreak`` span (nowrap, ``extra.css``): operands joined
by "=", "≈", "≤", "≥", "<", ">", "<=", ">=", "==", "×", "÷", "+" or "−" (the minus
sign), a range of numbers joined by an en dash, a number such as "2e-16", a name and
its number ("GPT-2", "Llama 3.1", "Figure 2"), a short tuple ("(1, −5)", "(B, H,
T, d)") and, outside tables, a hyphenated name ("GPT-NeoX", "DeepSeek-V3", "log-n";
not "fine-tuned"). Inline code of up to SHORT_CODE characters takes the class itself; in
longer inline code an assigned name keeps its "=" ("dim =") and each command-line flag
(``--help``) is kept whole, a call may break after its opening bracket
(``create_sinusoidal_positions(`` / ``max_positions, rotary_dim)``, not
``...(max_positio`` / ``ns, ...``) and a path after a ``/`` (``.../part2_extension/``
/ ``comparison_table.py``, not ``.../compar`` / ``ison_table.py``). A phrase longer
than LONGEST_PHRASE characters may still break. An API heading's name longer than
SHORT_CODE may break after an underscore rather than anywhere. The search index,
made from the page before this hook, keeps plain text.
"""

import re

TAG = re.compile(r"(<[^>]*>)")
TAG_NAME = re.compile(r"</?([a-zA-Z][\w-]*)")
SKIPPED = {"pre", "code", "script", "style", "svg", "textarea"}
FORMULA = '<span class="katex">'  # KaTeX's HTML, glyph by glyph
COPY_TEXT = '<div class="clipboard-copy-txt"'  # a notebook cell's source, as text
WORD = r"[^\s<>]+"
RELATION = r"(?:==|=|≈|≤|≥|×|÷|\+|−|&lt;=?|&gt;=?)"  # − is the minus sign, not "-"
NUMBER = r"\d[\d.,]*%?"
SCIENTIFIC = r"(?<![\w.])\d[\d.]*e[-+]\d+\b"  # 2e-16: Chromium breaks after "-"
NAMED_NUMBER = r"\b[A-Z][A-Za-z]*(?:-| )\d[\d.]*\b"  # GPT-2, Llama 3.1, Figure 2
ITEM = r"[−-]?(?:\d[\d.]*|[A-Za-z_][\w.]{0,4})"  # a number, or a name of up to 5
TUPLE = rf"[(\[]{ITEM}(?:, ?{ITEM})+[)\]]"  # (1, −5), [0.54, 0.84], (B, H, T, d)
OPERAND = rf"(?:{NAMED_NUMBER}|{TUPLE}|{WORD})"  # "Llama 3 × 2", not "Llama 3" alone
COMPOUND = r"(?<![\w.,-])[\w.]++(?:-[\w.]++)++(?![\w–-])"  # words joined by hyphens
# A part that makes a compound a name: a capital after a letter (GPT, NeoX, RoPE), a
# digit (V3, Qwen2, 7B) or a single letter (M-RoPE, log-n). "fine-tuned" may break.
NAME_PART = re.compile(r"[A-Za-z]+[A-Z][\w.]*|[A-Za-z]*\d[\w.]*|[A-Za-z]\.?")
INNER = (  # each starts where a word does: a long token is read once
    rf"(?<!\S){OPERAND}(?:\s{RELATION}\s{OPERAND})+|(?<![\d.,]){NUMBER}–{NUMBER}"
    rf"|{SCIENTIFIC}|{NAMED_NUMBER}|{TUPLE}"
)
INNER_PHRASE = re.compile(INNER)  # what a compound not kept whole may hold
PHRASE = re.compile(rf"{INNER}|(?P<compound>{COMPOUND})")
WORDS_PHRASE = re.compile(rf"(?<!\S){WORD}(?:\s{RELATION}\s{WORD})+")  # in a long one
LONGEST_PHRASE = 32  # characters: about a third of a phone's line
SHORT_CODE = 24
FLAG = re.compile(r"(?<!\S)--?\w[\w-]*")  # Chromium breaks after a hyphen
BREAKS_AFTER = re.compile(r"(?<=\w[(\[/])(?=\w)")  # a call's bracket, a path's "/"
ASSIGNED = re.compile(r"[\w.\[\]]+ =(?= )")  # "dim =": "=" does not start a line
OBJECT_NAME = re.compile(  # an API heading's name (mkdocstrings)
    r'(<span class="doc doc-object-name[^"]*">)([^<]+)(?=</span>)'
)
NOBREAK = '<span class="posenc-nobreak">{}</span>'
ENTITY = re.compile(r"&#?\w+;")


def shown_length(text: str) -> int:
    """Characters ``text`` (HTML-escaped) shows: an entity is one."""
    return len(ENTITY.sub("x", text))


def whole_if_short(match: re.Match) -> str:
    """The matched phrase in a nobreak span, unless it is over LONGEST_PHRASE."""
    phrase = match[0]
    return phrase if shown_length(phrase) > LONGEST_PHRASE else NOBREAK.format(phrase)


def is_name(compound: str) -> bool:
    """Whether a hyphenated compound is a name ("GPT-NeoX", "log-n"): one of its
    parts is a `NAME_PART`."""
    return any(NAME_PART.fullmatch(part) for part in compound.split("-"))


def whole_or_in_parts(match: re.Match, names: bool = True) -> str:
    """`whole_if_short`; a longer phrase keeps its relations between plain words
    whole ("x[:8] = [1," of "x[:8] = [1, 1, 1, 0, ...]"). A compound of plain words,
    a long one or (not ``names``) any compound may break at its hyphens, but not
    inside the phrases it holds ("meta-llama/Meta-Llama-3-8B" keeps "Llama-3")."""
    if match.lastgroup == "compound":
        if names and is_name(match[0]) and shown_length(match[0]) <= LONGEST_PHRASE:
            return NOBREAK.format(match[0])
        return INNER_PHRASE.sub(whole_or_in_parts, match[0])
    if shown_length(match[0]) <= LONGEST_PHRASE:
        return whole_if_short(match)
    return WORDS_PHRASE.sub(whole_if_short, match[0])


def kept_whole(text: str, names: bool = True) -> str:
    """``text`` (HTML-escaped, no tags) with its short phrases in nobreak spans;
    hyphenated names too unless not ``names`` (a table's cells: a narrow column
    breaks a long name rather than widen its table)."""
    return PHRASE.sub(lambda match: whole_or_in_parts(match, names), text)


def kept_whole_in_code(pieces: list[str], i: int) -> None:
    """If tag ``pieces[i]`` opens a plain ``<code>`` of text alone: short, the
    whole code gets the class; long, each of its flags goes into a span."""
    if pieces[i] != "<code>" or i + 2 >= len(pieces) or pieces[i + 2] != "</code>":
        return
    if shown_length(pieces[i + 1]) <= SHORT_CODE:
        pieces[i] = '<code class="posenc-nobreak">'
    else:
        code = ASSIGNED.sub(whole_if_short, pieces[i + 1])
        code = FLAG.sub(whole_if_short, code)
        pieces[i + 1] = BREAKS_AFTER.sub("<wbr>", code)


def breakable_name(match: re.Match) -> str:
    """An `OBJECT_NAME` longer than SHORT_CODE that may break after each "_"."""
    name = match[2]
    return match[1] + (name.replace("_", "_<wbr>") if len(name) > SHORT_CODE else name)


def with_phrases_kept_whole(body: str) -> str:
    """The page body with `kept_whole` applied to its prose text (module doc)."""
    body = OBJECT_NAME.sub(breakable_name, body)
    pieces = TAG.split(body)  # text, tag, text, tag, ..., text
    skipped, formula_spans = [], 0  # open skipped elements; spans open in KaTeX
    tables = 0  # open tables
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            if not skipped and not formula_spans:
                pieces[i] = kept_whole(piece, names=not tables)
            continue
        name = (TAG_NAME.match(piece) or [None, ""])[1].lower()
        if name == "table" and not skipped and not formula_spans:
            tables = max(0, tables + (-1 if piece.startswith("</") else 1))
        if formula_spans and name == "span":
            formula_spans += -1 if piece.startswith("</") else 1
        elif piece.startswith(FORMULA) and not skipped:
            formula_spans = 1
        elif piece.startswith(COPY_TEXT) and not skipped:  # text alone, no tags
            skipped = ["div"]
        elif skipped == ["div"] and piece == "</div>":
            skipped = []
        elif name in SKIPPED and not piece.endswith("/>"):
            if piece.startswith("</"):
                skipped = skipped[:-1]
            else:
                if not skipped:
                    kept_whole_in_code(pieces, i)
                skipped = [*skipped, name]
    return "".join(pieces)


def on_post_page(output, page, config):
    start = output.find(">", output.find("<body")) + 1  # after the body tag
    return output[:start] + with_phrases_kept_whole(output[start:])
