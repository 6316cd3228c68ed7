"""The API pages' text, checked without a build: every parameter of every public
callable of the library is documented once, under its own name, with the default
its signature has; docstrings are Markdown (no Sphinx roles, no double backticks)
and their formulas are TeX, not Markdown emphasis."""

import ast
import importlib
import inspect
import re

import griffe
import pytest

from tests.test_layout import PUBLIC, ROOT

MODULES = [importlib.import_module(f"posenc_docs.{name}") for name in PUBLIC]
HEADER = re.compile(r"^(\w[\w ]*)\n-+$", re.MULTILINE)
ENTRY = re.compile(r"^(?P<name>\*{0,2}\w+)(?: : (?P<type>.+))?$")
TWIN = re.compile(r"^Torch twin of \[`(\w+)`\]\[\]")  # a link to the NumPy twin


def public_callables(module):
    """(qualified name, object) for each public function, class and method."""
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj):
            yield f"{module.__name__}.{name}", obj
        elif inspect.isclass(obj):
            yield f"{module.__name__}.{name}", obj
            for attr, member in vars(obj).items():
                if inspect.isfunction(member) and not attr.startswith("_"):
                    yield f"{module.__name__}.{name}.{attr}", member


CALLABLES = [item for module in MODULES for item in public_callables(module)]


def sections(doc: str) -> dict[str, str]:
    """numpydoc sections of a cleaned docstring, by title."""
    parts = HEADER.split(doc)
    return {title: body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def documented(doc: str) -> list[tuple[str, str | None]]:
    """(name, type line) of each entry of the Parameters section, in order."""
    body = sections(doc).get("Parameters", "")
    entries = []
    for line in body.splitlines():
        if line and not line[0].isspace():
            match = ENTRY.match(line)
            assert match, f"unparsable parameter line {line!r}"
            entries.append((match["name"], match["type"]))
    return entries


def signature_parameters(obj) -> list[inspect.Parameter]:
    params = inspect.signature(obj).parameters.values()
    return [p for p in params if p.name != "self"]


def shape(params: list[inspect.Parameter]) -> list[tuple]:
    """Names, kinds and defaults (annotations aside): what "same arguments" means."""
    return [(p.name, p.kind, p.default) for p in params]


def stated_default(kind: str | None):
    """The default a type line states, as text: '{a, b}' -> 'a', ', default x'."""
    if kind is None:
        return None
    if kind.startswith("{"):
        return kind[1:].split(",")[0].rstrip("}").strip()
    match = re.search(r", default (.+)$", kind)
    if match:
        return match[1]
    return "None" if kind.endswith(", optional") else None


def same_value(text: str, value) -> bool:
    try:
        parsed = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text == repr(value)
    return parsed == value and type(parsed) is type(value)


@pytest.mark.parametrize("qualname, obj", CALLABLES, ids=[q for q, _ in CALLABLES])
def test_parameters_documented_one_per_name_with_real_defaults(qualname, obj):
    params = signature_parameters(obj)
    doc = inspect.cleandoc(obj.__doc__ or "")
    entries = documented(doc)
    if not entries:
        twin = TWIN.match(doc)
        if not params:
            return
        assert twin, f"{qualname}: no Parameters section"
        reference = getattr(inspect.getmodule(obj), twin[1])
        assert shape(signature_parameters(reference)) == shape(params), (
            f"{qualname} says 'twin of {twin[1]}' but its signature differs;"
            " document its parameters"
        )
        return
    names = [name.lstrip("*") for name, _ in entries]
    assert names == [p.name for p in params], f"{qualname}: {names}"
    for (name, kind), param in zip(entries, params, strict=True):
        stated = stated_default(kind)
        if param.default is inspect.Parameter.empty:
            assert stated is None, f"{qualname}({name}) is required, docs say {kind!r}"
        else:
            assert stated is not None, f"{qualname}({name}): state the default"
            assert same_value(stated, param.default), (
                f"{qualname}({name}): docs say default {stated}, "
                f"signature says {param.default!r}"
            )


def rendered_docstrings():
    """(qualified name, object, griffe's docstring) of each documented callable:
    what mkdocstrings renders."""
    package = griffe.load("posenc_docs", search_paths=[str(ROOT)])
    for qualname, obj in CALLABLES:
        loaded = package[qualname.removeprefix("posenc_docs.")]
        if loaded.docstring is not None:
            yield qualname, obj, loaded.docstring


def test_the_rendered_defaults_are_the_signatures():
    """What mkdocstrings shows: griffe's parse of each docstring (one per name)."""
    wrong = []
    for qualname, obj, docstring in rendered_docstrings():
        params = {p.name: p for p in signature_parameters(obj)}
        for section in docstring.parse("numpy"):
            if section.kind is not griffe.DocstringSectionKind.parameters:
                continue
            for item in section.value:
                param = params[item.name.lstrip("*")]
                shown = None if item.value is None else str(item.value)
                if param.default is inspect.Parameter.empty:
                    ok = shown is None
                else:
                    ok = shown is not None and same_value(shown, param.default)
                if not ok:
                    wrong.append(f"{qualname}({item.name}): {shown} vs {param}")
    assert not wrong, "\n".join(wrong)


def test_the_rendered_types_are_the_docstrings():
    """griffe turns a type that parses as Python into an expression, and
    mkdocstrings shows that: `array_like, shape (d/2,)` came out as
    `(array_like, shape(d / 2))` and `{"interleaved", "half"}` as
    `(interleaved, half)`. Every type shown must be the docstring's own text, and
    each returned value its own entry (`a, b : t` is shown as one type)."""
    wrong = []
    for qualname, _, docstring in rendered_docstrings():
        raw = " ".join(docstring.value.split())
        for section in docstring.parse("numpy"):
            for item in section.value if isinstance(section.value, list) else []:
                shown = str(getattr(item, "annotation", None) or "")
                if shown not in raw or " : " in shown:
                    wrong.append(f"{qualname} {item.name or 'returns'}: {shown}")
    assert not wrong, "\n".join(wrong)


ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|obj|ref|exc):`")


@pytest.mark.parametrize("path", sorted((ROOT / "posenc_docs").rglob("*.py")))
def test_no_sphinx_roles_in_docstrings(path):
    assert not ROLE.search(path.read_text()), f"{path}: use `name`, not a role"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_library_docstrings_are_markdown(module):
    assert "``" not in inspect.getsource(module), "single backticks are Markdown code"


def prose_outside_math(text: str) -> str:
    """`text` without $$...$$, $...$ and `code` spans: what Markdown sees as prose."""
    text = re.sub(r"\$\$.+?\$\$", " ", text, flags=re.DOTALL)
    text = re.sub(r"\$[^$\n]+\$", " ", text)
    return re.sub(r"`[^`\n]+`", " ", text)


EMPHASIS = re.compile(r"(?<![\w*])\*\w[\w \n]*\w\*(?![\w*])")  # *not*, *in a line*
LEAD = re.compile(r"^\*\*[A-Z][\w ]*\.\*\*", re.MULTILINE)  # a paragraph's **Lead.**
DOCUMENTED = [(m.__name__, m) for m in MODULES] + CALLABLES


@pytest.mark.parametrize("qualname, obj", DOCUMENTED, ids=[q for q, _ in DOCUMENTED])
def test_formulas_in_docstrings_are_tex_not_emphasis(qualname, obj):
    """A `*` outside math and code is Markdown emphasis: `0.1*mu*ln(s)` renders as
    0.1<em>mu</em>ln(s). Only a word or words in stars, *like this*, is allowed."""
    prose = prose_outside_math(inspect.cleandoc(obj.__doc__ or ""))
    prose = LEAD.sub(" ", EMPHASIS.sub(" ", prose))
    stars = re.findall(r".{0,20}\*.{0,20}", prose)
    assert not stars, f"{qualname}: put formulas in $...$: {stars}"
    assert "$" not in prose, f"{qualname}: unbalanced $"
