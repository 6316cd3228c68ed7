"""What of a stylesheet can apply to one page: the rest of it dropped.

Notebook pages carry JupyterLab's stylesheet, written for the whole application
(file browser, dialogs, menus, a theme's 450 custom properties): 590 kB, of which
a static notebook page uses a few per cent. `for_page` keeps

- a rule's selectors whose classes all occur in the page's ``class`` attributes,
  except a ``:root`` after a combinator, which matches nothing (classes inside
  ``:not()``, ``:is()``, ``:has()`` or an attribute selector do not count: such
  selectors stay);
- custom properties that a kept declaration or the page reads, directly or through
  another kept property;
- keyframes that a kept rule names;

and drops ``@charset``, which means nothing after a stylesheet's first bytes.

A stylesheet that a script's classes depend on must not go through `for_page`:
`for_classes` takes the classes such scripts could add too (hooks/site_css.py).
Results are kept in memory for ``mkdocs serve``'s rebuilds (0.5 s a notebook
page), and a stylesheet is parsed once for all the pages that carry it.
"""

import copy
import functools
import re

import tinycss2

CLASS_ATTRIBUTE = re.compile(r'\bclass="([^"]*)"')
VAR_REFERENCE = re.compile(r"var\(\s*(--[\w-]+)")
GROUPING = {"media", "supports"}  # at-rules holding rules
KEYFRAMES = re.compile(r"(?:-\w+-)?keyframes")


def for_page(css: str, page_html: str) -> str:
    """``css`` without the rules, custom properties and keyframes that cannot apply
    to ``page_html`` (which must not hold the stylesheet itself)."""
    return for_classes(css, page_classes(page_html), VAR_REFERENCE.findall(page_html))


def page_classes(page_html: str) -> frozenset:
    """The classes the ``class`` attributes of ``page_html`` name."""
    values = CLASS_ATTRIBUTE.findall(page_html)
    return frozenset(name for value in values for name in value.split())


def for_classes(css: str, classes, read_by_page=()) -> str:
    """``css`` without the rules that need a class not in ``classes``, and without
    the custom properties and keyframes that only those rules use."""
    return _for_classes(css, frozenset(classes), frozenset(read_by_page))


@functools.lru_cache(maxsize=16)
def _for_classes(css: str, classes: frozenset, read_by_page: frozenset) -> str:
    rules = kept_rules(_parse(css), classes)
    rules = without_properties(rules, read_properties(rules, read_by_page))
    return "".join(_serialize(rule) for rule in without_keyframes(rules))


@functools.lru_cache(maxsize=4)
def _parse(css: str) -> tuple:
    """The stylesheet's rules, parsed once for all pages (`kept_rules` copies a
    rule before it changes one)."""
    return tuple(
        tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True)
    )


def _blocks(rule) -> list:
    """A block's rules or declarations, parsed."""
    return tinycss2.parse_blocks_contents(
        rule.content, skip_comments=True, skip_whitespace=True
    )


def _serialize(rule) -> str:
    if rule.type == "at-rule" and rule.lower_at_keyword in GROUPING:
        inner = "".join(_serialize(child) for child in rule.content)
        return f"@{rule.at_keyword}{tinycss2.serialize(rule.prelude)}{{{inner}}}"
    return rule.serialize()


def selectors(prelude: list) -> list[list]:
    """A selector list's tokens, split at its top-level commas."""
    parts = [[]]
    for token in prelude:
        if token == ",":
            parts.append([])
        else:
            parts[-1].append(token)
    return parts


def can_match(selector: list, classes: set[str]) -> bool:
    """False if ``selector`` names a class not in ``classes`` (outside functions and
    brackets) or has ``:root`` after a combinator."""
    combined, previous = False, None
    for token in selector:
        if token.type == "whitespace" or token in (">", "+", "~"):
            combined |= previous is not None
            continue
        if token.type == "ident" and previous == "." and token.value not in classes:
            return False
        is_root = token.type == "ident" and previous == ":" and token.value == "root"
        if is_root and combined:  # the root has no ancestor or previous sibling
            return False
        previous = token
    return True


def kept_rules(rules: list, classes: set[str]) -> list:
    """``rules`` whose selectors `can_match`, with only those selectors; grouping
    rules with their kept children, dropped when none is left."""
    kept = []
    for rule in map(copy.copy, rules):  # the parsed rules stay as they were
        if rule.type == "qualified-rule":
            matching = [s for s in selectors(rule.prelude) if can_match(s, classes)]
            if not matching:
                continue
            rule.prelude = tinycss2.parse_component_value_list(
                ",".join(tinycss2.serialize(s).strip() for s in matching)
            )
        elif rule.type == "at-rule" and rule.lower_at_keyword in GROUPING:
            rule.content = kept_rules(_blocks(rule), classes)
            if not rule.content:
                continue
        elif rule.type == "at-rule" and rule.lower_at_keyword == "charset":
            continue
        kept.append(rule)
    return kept


def _style_rules(rules: list):
    """Every qualified rule, inside grouping rules too (not keyframes' steps)."""
    for rule in rules:
        if rule.type == "qualified-rule":
            yield rule
        elif rule.type == "at-rule" and rule.lower_at_keyword in GROUPING:
            yield from _style_rules(rule.content)


def read_properties(rules: list, read_by_page) -> set[str]:
    """Custom properties read by a declaration of ``rules`` or by the page, and by
    the custom properties those read, and so on."""
    reads, read = {}, set(read_by_page)
    for rule in _style_rules(rules):
        for declaration in _blocks(rule):
            if declaration.type != "declaration":
                continue
            value = VAR_REFERENCE.findall(tinycss2.serialize(declaration.value))
            if declaration.name.startswith("--"):
                reads.setdefault(declaration.name, set()).update(value)
            else:
                read.update(value)
    pending = list(read)
    while pending:
        for name in reads.get(pending.pop(), ()):
            if name not in read:
                read.add(name)
                pending.append(name)
    return read


def without_properties(rules: list, read: set[str]) -> list:
    """``rules`` without declarations of custom properties not in ``read``; a rule
    left empty goes."""
    for rule in _style_rules(rules):
        kept = [
            d
            for d in _blocks(rule)
            if d.type != "error"  # what a browser would drop too
            and (
                d.type != "declaration" or not d.name.startswith("--") or d.name in read
            )
        ]
        rule.content = tinycss2.parse_component_value_list(
            ";".join(d.serialize() for d in kept)
        )
    return _without_empty(rules)


def _without_empty(rules: list) -> list:
    kept = []
    for rule in rules:
        if rule.type == "at-rule" and rule.lower_at_keyword in GROUPING:
            rule.content = _without_empty(rule.content)
        if rule.content or rule.type == "at-rule" and rule.content is None:
            kept.append(rule)
    return kept


def without_keyframes(rules: list) -> list:
    """``rules`` without the keyframes that no other rule names."""
    named = " ".join(tinycss2.serialize(rule.content) for rule in _style_rules(rules))
    return [
        rule
        for rule in rules
        if not (rule.type == "at-rule" and KEYFRAMES.fullmatch(rule.lower_at_keyword))
        or re.search(
            rf"\b{re.escape(tinycss2.serialize(rule.prelude).strip())}\b", named
        )
    ]
