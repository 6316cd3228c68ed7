"""MkDocs hook: a build cache keyed by what each artifact depends on.

A figure, an example's output, an executed notebook and a macro value are stored
under ``.cache/<kind>/`` by a key made of their own source, the source of every
``posenc_docs`` module they import, transitively (read with ``ast``, never
imported), the data files those modules name, and the versions of the libraries
that shape them (this package's own installed requirements among them). ``mkdocs
build`` and ``mkdocs serve`` share the cache; an edit changes exactly the keys of
what depends on it, so nothing is ever stale.

As a hook (listed first in ``mkdocs.yml``) it also, at the start of every build:
forgets the package modules imported by an earlier build of this process if any
package file changed (``mkdocs serve`` would otherwise compute with old code);
caches markdown-exec's Python blocks by key; keys mkdocs-jupyter's own notebook
cache by the notebook's imports too; and, until the build ends, reads each
source's dependencies once (no package file changes while a build runs). At exit
it spares the process a last collection of everything the build made.
"""

import ast
import atexit
import contextvars
import gc
import hashlib
import json
import os
import re
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from functools import lru_cache, wraps
from importlib import metadata, util
from pathlib import Path

from mkdocs.plugins import event_priority

if __name__ != "build_cache":  # loaded by MkDocs as the hook "hooks/build_cache.py"
    sys.modules.setdefault("build_cache", sys.modules[__name__])  # one copy for all
    __name__ = "build_cache"  # workers import draw_variant by this name
PACKAGE = "posenc_docs"
LIBRARIES = ("numpy", "torch", "matplotlib")  # shape every number and figure
IMPORT_LINE = re.compile(r"^\s*(?:from\s+[\w.]+\s+)?import\s+[^\n]+", re.MULTILINE)
FROM_MODULE = re.compile(r"from\s+([A-Za-z_][\w.]*)\s+import\b")


_during_build: list[dict] = []  # memos of one build: no package file changes
_builds = [0]  # builds begun in this process


def within_build(function):
    """``function`` memoized from `begin_build` to `on_post_build`, while no file
    changes: a build asks about the same files hundreds of times."""

    @wraps(function)
    def memoized(*args):
        if not _during_build:
            return function(*args)
        memo = _during_build[0].setdefault(function.__qualname__, {})
        if args not in memo:
            memo[args] = function(*args)
        return memo[args]

    return memoized


@within_build
def module_path(name: str, root: Path) -> Path | None:
    """The file of package module ``name`` (``posenc_docs.x.y``) under ``root``."""
    if name != PACKAGE and not name.startswith(PACKAGE + "."):
        return None
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def parse_imports(source: str) -> ast.Module:
    """The module's syntax tree; if it is not plain Python (a notebook cell with
    shell magics, a Markdown page), its import lines: each that parses alone (not
    prose that starts with "import"), and the module of a ``from`` line whose
    names go on over the next lines."""
    try:
        return ast.parse(source)
    except SyntaxError:
        lines = [m[0].strip() for m in IMPORT_LINE.finditer(source)]
        return ast.parse("\n".join(filter(None, map(_import_alone, lines))))


def _import_alone(line: str) -> str | None:
    try:
        return line if ast.parse(line).body else None
    except SyntaxError:
        module = FROM_MODULE.match(line)
        return f"import {module[1]}" if module else None


def imported_names(tree: ast.Module, package: str | None) -> set[str]:
    """Dotted names a module may import: ``from a.b import c`` gives a, a.b, a.b.c."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level and package:  # relative to the importing module's package
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([node.module] if node.module else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    parents = {
        ".".join(n.split(".")[:i]) for n in names for i in range(1, n.count(".") + 1)
    }
    return names | parents


def path_strings(tree: ast.Module) -> frozenset[str]:
    """A module's string constants that could be a relative file path."""
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    return frozenset(
        text
        for text in strings
        if isinstance(text, str) and 0 < len(text) < 200 and "\n" not in text
    )


def named_files(strings: frozenset[str], bases: list[Path], root: Path):
    """Package files that ``strings`` (`path_strings`) name, relative to one of
    ``bases`` (``"results.json"``, ``"examples/pitfalls/x.py"``): ``(modules, data
    files)``."""
    modules, data = set(), set()
    for text in strings:
        for path in (base / text for base in bases):
            if not _is_package_file(path, root):
                continue
            if path.suffix == ".py":  # run as a script (runpy): follow its imports
                modules.add(".".join(path.relative_to(root).with_suffix("").parts))
            else:
                data.add(path)
    return modules, data


@within_build
def _is_package_file(path: Path, root: Path) -> bool:
    return path.is_file() and root / PACKAGE in path.parents


@lru_cache(maxsize=4096)
def _module_info(path: Path, stamp: tuple[int, int], name: str, root: Path):
    """Names ``path`` imports or names, and data files it names (memoized)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names, strings = _source_facts(path.read_text(encoding="utf-8"), package)
    modules, data = named_files(strings, [path.parent, root / PACKAGE], root)
    return names | modules, tuple(sorted(data))


@lru_cache(maxsize=1024)
def _source_facts(source: str, package: str | None):
    """Names ``source`` may import, and its strings that may name files (parsed
    once in a process: ``mkdocs serve`` keeps them from one build to the next).

    They are gathered statement by statement, each top-level statement's text
    read once: the parts of one module that values are keyed on (`module_part`)
    share most of their statements.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:  # e.g. a notebook cell with shell magics
        return _tree_facts(parse_imports(source), package)
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    names, strings = set(), set()
    for node in tree.body:
        first = min(n.lineno for n in (node, *getattr(node, "decorator_list", ())))
        text = "\n".join(lines[first - 1 : node.end_lineno])
        if (facts := _statement_facts(text, package)) is None:
            return _tree_facts(tree, package)  # a line shared by two statements
        names |= facts[0]
        strings |= facts[1]
    return frozenset(names), frozenset(strings)


@lru_cache(maxsize=4096)
def _statement_facts(text: str, package: str | None):
    """`_tree_facts` of one top-level statement's lines; None if they do not
    parse alone (``x = (1,\n 2); import y``: ``import y`` starts mid-line)."""
    try:
        return _tree_facts(ast.parse(text), package)
    except SyntaxError:
        return None


def _tree_facts(tree: ast.Module, package: str | None):
    return frozenset(imported_names(tree, package)), path_strings(tree)


@lru_cache(maxsize=1024)
def _source_imports(source: str, package: str | None, root: Path, build: int):
    """What ``source`` imports or names, the files looked up again in each
    ``build``: the scripts it names may appear between two builds of one serve."""
    names, strings = _source_facts(source, package)
    modules, _ = named_files(strings, [root / PACKAGE], root)
    return names | frozenset(modules)


@within_build
def _stamp(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


_closures: dict = {}  # (names, root) -> (files with stamps, package modules absent)


def dependencies(source: str, root: Path, name: str | None = None) -> list[Path]:
    """Package files that ``source`` (module ``name``, if it is one) depends on."""
    package = name.rpartition(".")[0] if name else None
    parts = name.split(".") if name else []
    own = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}  # and its packages
    start = _source_imports(source, package, root, _builds[0]) | own
    if (start, root) in _closures:  # still valid if no file changed or appeared
        files, absent = _closures[(start, root)]
        if all(p.is_file() and _stamp(p) == s for p, s in files) and not any(
            module_path(n, root) for n in absent
        ):
            return [path for path, _ in files]
    todo, seen, files, absent = set(start), set(), set(), set()
    while todo:
        module = todo.pop()
        seen.add(module)
        path = module_path(module, root)
        if path is None:
            absent.add(module)
            continue
        names, data = _module_info(path, _stamp(path), module, root)
        files.update([path, *data])
        todo |= names - seen
    absent = {n for n in absent if n.startswith(PACKAGE + ".")}
    _closures[(start, root)] = ([(p, _stamp(p)) for p in sorted(files)], absent)
    return sorted(files)


@lru_cache(maxsize=64)
def versions(libraries: tuple[str, ...]) -> tuple[str, ...]:
    """``name==version`` of each library, and this package's installed version and
    requirements (the install page prints them), read from metadata, not imported."""
    own = (
        f"{PACKAGE}=={metadata.version(PACKAGE)}",
        *(metadata.requires(PACKAGE) or ()),
    )
    return (
        *own,
        *(f"{lib}=={metadata.version(lib)}" for lib in libraries),
        sys.version,
    )


def file_digest(path: Path) -> bytes:
    """SHA-256 of the file's bytes, read again only when its stamp changes."""
    return _file_digest(path, _stamp(path))


@lru_cache(maxsize=4096)
def _file_digest(path: Path, stamp: tuple[int, int]) -> bytes:
    return hashlib.sha256(path.read_bytes()).digest()


@within_build
def dependency_digest(source: str, root: Path, name: str | None = None) -> bytes:
    """Hash of the path and bytes of every package file ``source`` depends on;
    worked out once per build."""
    digest = hashlib.sha256()
    for path in dependencies(source, root, name):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(file_digest(path))
    return digest.digest()


def artifact_key(
    source: str, root: Path, *extra, name: str | None = None, libraries=()
) -> str:
    """Hash of ``source``, its package dependencies, library versions, ``extra`` and
    this file (a change to how artifacts are made makes them all stale)."""
    digest = hashlib.sha256(source.encode())
    digest.update(dependency_digest(source, root, name))
    own = Path(__file__)  # how artifacts are made here shapes them too
    digest.update(file_digest(own))
    parts = [versions(LIBRARIES + tuple(libraries)), *extra]
    digest.update(json.dumps(parts, sort_keys=True, default=repr).encode())
    return digest.hexdigest()


class Store:
    """Bytes by key in one directory."""

    def __init__(self, directory: Path):
        self.directory = directory

    def get(self, key: str) -> bytes | None:
        path = self.directory / key
        return path.read_bytes() if path.is_file() else None

    def put(self, key: str, data: bytes) -> bytes:
        self.directory.mkdir(parents=True, exist_ok=True)
        partial = self.directory / f".{key}.{os.getpid()}"
        partial.write_bytes(data)
        partial.replace(self.directory / key)  # atomic: never half an artifact
        return data


def module_source(module: str, root: Path) -> str:
    """The source of package module ``module`` (a dotted name) under ``root``."""
    return module_path(module, root).read_text(encoding="utf-8")


def in_background(*calls: tuple) -> list[Future]:
    """The future of each ``(function, *args)``, called in order on one new thread,
    which ends when they are done: work that goes on while the pages build."""
    pool = ThreadPoolExecutor(max_workers=1)
    try:
        return [pool.submit(*call) for call in calls]
    finally:
        pool.shutdown(wait=False)


def cache_dir(config) -> Path:
    """The project's cache directory (gitignored; ``make clean`` removes it)."""
    return Path(config.config_file_path).parent / ".cache"


def package_digests(root: Path) -> dict[str, str]:
    """Package file -> content hash, for telling whether the package changed."""
    return {
        p.as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((root / PACKAGE).rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def forget_changed_modules(root: Path, seen: dict[str, str]) -> bool:
    """Drop every imported package module if a package file changed since ``seen``,
    and the cached bytecode of each changed file: Python trusts a ``.pyc`` whose
    source has the same size and modification second, so an edit that keeps both
    would import the old code again."""
    now = package_digests(root)
    changed = bool(seen) and now != seen
    if changed:
        for name in [n for n in sys.modules if module_path(n, root)]:
            del sys.modules[name]
        for path in [p for p in now if p.endswith(".py") and seen.get(p) != now[p]]:
            Path(util.cache_from_source(path)).unlink(missing_ok=True)
    seen.clear()
    seen.update(now)
    return changed


def example_key(code: str, root: Path) -> str:
    """Key of a markdown-exec Python block's output: its code and what it imports."""
    return artifact_key(code, root, "example", libraries=("markdown-exec",))


def cached_run(run, store: Store, root: Path):
    """markdown-exec's ``_run_python``, answering from ``store`` by the code's key.

    Each block runs in a fresh ``contextvars`` context, so what one block sets
    (``np.set_printoptions``) cannot change another's output: a block prints what
    it prints run alone, whether or not the blocks before it came from the cache.
    """

    @wraps(run)
    def run_cached(code, returncode=None, session=None, id=None, **extra):  # noqa: A002
        if session:  # shares globals with other blocks: not an artifact of its own
            return run(code, returncode, session=session, id=id, **extra)
        key = example_key(code, root)
        hit = store.get(key)
        if hit is None:  # a fresh context: numpy's print options start at defaults
            output = contextvars.Context().run(
                run, code, returncode, session=session, id=id, **extra
            )
            hit = store.put(key, output.encode())
        return hit.decode()

    return run_cached


NOTEBOOK_LIBRARIES = ("mkdocs-jupyter", "nbconvert", "jupytext", "ipykernel")


def notebook_key(original, root: Path):
    """mkdocs-jupyter's cache key, plus the notebook's imports and libraries."""

    @wraps(original)
    def key(nb_path, config, exec_nb):
        source = Path(nb_path).read_text(encoding="utf-8")
        own = original(nb_path, config, exec_nb)
        return artifact_key(source, root, own, libraries=NOTEBOOK_LIBRARIES)

    return key


_package_seen: dict[str, str] = {}


# A build makes millions of short-lived objects beside a large heap (torch, Jinja,
# Markdown trees). At Python's default thresholds (700, 10, 10) the cyclic
# collector took 1.7 s of a cold build's 11.5 CPU-s in this process (ten full
# collections) and 1.5 s of the 12.8 that drawing every figure takes; with a
# fourteenth as many young collections, so as many fewer full ones: 0.6 and 0.6 s.
COLLECTOR_THRESHOLDS = (10_000, 10, 10)


def collect_less() -> None:
    """This process's cyclic collector at COLLECTOR_THRESHOLDS (builds, workers)."""
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def on_startup(command, dirty):
    collect_less()
    # A build's objects go with its process: freezing them first spares the exit a
    # collection of them all (1.8-2.2 s after the build's end, now 0.8-1.0 s).
    atexit.register(gc.freeze)


# Hooks run after the plugins unless given a priority. mkdocs-macros imports
# hooks/macros.py in its on_config, and with it the package's formatters: on a serve
# rebuild that import must find the package as it is now, or old code computes
# values that are then cached under the new sources' keys. So this on_config, which
# forgets changed package modules, runs before every other.
@event_priority(100)
def on_config(config):
    import markdown_exec._internal.formatters.python as python_formatter
    import mkdocs_jupyter.plugin as jupyter

    root = Path(config.config_file_path).parent
    forget_changed_modules(root, _package_seen)
    begin_build()
    run = python_formatter._run_python
    run = getattr(run, "__wrapped__", run)  # serve: wrap the original once
    python_formatter._run_python = cached_run(
        run, Store(cache_dir(config) / "examples"), root
    )
    key = getattr(jupyter._compute_cache_key, "__wrapped__", jupyter._compute_cache_key)
    jupyter._compute_cache_key = notebook_key(key, root)
    notebooks = config.plugins["mkdocs-jupyter"].config
    notebooks["cache"], notebooks["cache_dir"] = (
        True,
        str(cache_dir(config) / "notebooks"),
    )
    return config


def begin_build():
    """From here to `on_post_build` no package file changes: read each once."""
    _during_build[:] = [{}]
    _builds[0] += 1


def on_post_build(config):
    _during_build.clear()  # files may change before the next build


def on_build_error(error):
    _during_build.clear()


DRAWN_THEME = "light"  # the dark SVGs are these recoloured (figures.spec)


DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
IMPORTS = (ast.Import, ast.ImportFrom)


def bound_names(statement: ast.stmt) -> set[str]:
    """Names a top-level statement binds: a definition, an assignment, an import."""
    if isinstance(statement, DEFINITIONS):
        return {statement.name}
    if isinstance(statement, IMPORTS):
        return {(a.asname or a.name).split(".")[0] for a in statement.names}
    if isinstance(statement, ast.Assign | ast.AnnAssign | ast.AugAssign):
        targets = getattr(statement, "targets", None) or [statement.target]
        return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return set()


def names_used(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def figure_call(tree: ast.Module, slug: str) -> ast.Call | None:
    """The ``FigureSpec(slug=...)`` call of figure ``slug`` in a module's tree; the
    slug a string or a top-level name assigned one."""
    named = {
        name: statement.value
        for statement in tree.body
        if isinstance(statement, ast.Assign)
        for name in bound_names(statement)
    }
    calls = (node for node in ast.walk(tree) if isinstance(node, ast.Call))
    for call in calls:
        for keyword in (k for k in call.keywords if k.arg == "slug"):
            value = keyword.value
            value = named.get(value.id) if isinstance(value, ast.Name) else value
            if isinstance(value, ast.Constant) and value.value == slug:
                return call
    return None


def only_names(statement: ast.stmt, names: set[str]) -> ast.stmt:
    """An import statement cut down to the aliases that bind ``names``."""
    if not isinstance(statement, IMPORTS):
        return statement
    aliases = [a for a in statement.names if bound_names(ast.Import([a])) & names]
    if isinstance(statement, ast.Import):
        return ast.Import(names=aliases)
    return ast.ImportFrom(module=statement.module, names=aliases, level=0)


def figure_source(source: str, slug: str) -> str | None:
    """What figure ``slug`` of figure module ``source`` is made of, as source: its
    ``FigureSpec(...)`` call and what `reachable_source` keeps of the module for
    it. None if there is no such call, or a relative import (keys then take the
    whole module). Comments and layout are not part of it (``ast.unparse``)."""
    tree, *_, relative = module_graph(source)  # one parse for all of its figures
    call = figure_call(tree, slug)
    if call is None or relative:
        return None
    return "\n".join([reachable_source(source, names_used(call)), ast.unparse(call)])


@lru_cache(maxsize=1024)
def module_part(source: str, names: frozenset[str]) -> str | None:
    """What module ``source`` is, as far as code that reads only its top-level
    ``names`` can tell (`reachable_source`); None with a relative import."""
    *_, relative = module_graph(source)
    return None if relative else reachable_source(source, names)


@lru_cache(maxsize=64)
def module_graph(source: str):
    """A module's tree (read, never changed), the statements binding each name,
    the names each statement uses, the statements that bind none, and whether it
    has a relative import."""
    tree = ast.parse(source)
    binders: dict[str, list[int]] = {}
    for i, statement in enumerate(tree.body):
        for name in bound_names(statement):
            binders.setdefault(name, []).append(i)
    uses = [names_used(statement) for statement in tree.body]
    unbound = [i for i, statement in enumerate(tree.body) if not bound_names(statement)]
    relative = any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(tree))
    return tree, binders, uses, unbound, relative


@lru_cache(maxsize=4096)
def statement_source(source: str, i: int, names: frozenset[str]) -> str:
    """Top-level statement ``i`` of module ``source`` (an import: only ``names``)."""
    tree, *_ = module_graph(source)
    return ast.unparse(only_names(tree.body[i], set(names)))


def reachable_source(source: str, names: set[str]) -> str:
    """The top-level statements of module ``source`` that bind no name, and the
    definitions, assignments and imports that they or ``names`` reach by name,
    transitively (imports cut down to the names reached), in module order."""
    tree, binders, uses, unbound, _ = module_graph(source)
    needed = {i: set() for i in unbound}
    todo = set(names).union(*(uses[i] for i in unbound))
    seen = set()
    while todo:
        seen.add(name := todo.pop())
        for i in binders.get(name, []):
            needed.setdefault(i, set()).add(name)
            if not isinstance(tree.body[i], IMPORTS):
                todo |= uses[i] - seen
    kept = (statement_source(source, i, frozenset(needed[i])) for i in sorted(needed))
    return "\n".join(kept)


def draw_variant(slug: str, phone: bool) -> str:
    """One SVG of one figure, in ``DRAWN_THEME`` (importable by worker processes)."""
    from posenc_docs.figures import render

    collect_less()  # a worker allocates like a build

    return render(slug, DRAWN_THEME, phone).decode()


def module_fields(module: str) -> dict:
    """One figure module's figures' fields (``draw`` left out: SVGs are its
    output) and its widgets' attributes, as JSON reads them back."""
    import dataclasses
    import importlib

    from posenc_docs.figures import widget_attributes

    specs = getattr(importlib.import_module(module), "FIGURES", [])
    fields = [{f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
              for spec in specs]  # fmt: skip
    figures = [figure | {"draw": None} for figure in fields]
    widgets = getattr(importlib.import_module(module), "WIDGETS", {})
    drawn = {"figures": figures, "widgets": {n: widget_attributes(n) for n in widgets}}
    return json.loads(json.dumps(drawn, sort_keys=True, default=repr))


def module_json(fields: dict, svgs: dict) -> bytes:
    """JSON of one figure module: its `module_fields` and each figure's SVGs (from
    ``svgs``, keyed by ``(slug, phone)``)."""
    figures = [
        figure
        | {"svg": svgs[(figure["slug"], False)]}
        | {"svg_phone": svgs[(figure["slug"], True)]}
        for figure in fields["figures"]
    ]
    drawn = {"figures": figures, "widgets": fields["widgets"]}
    return json.dumps(drawn, sort_keys=True, default=repr).encode()


class LazyModule:
    """A module imported on first attribute access: a page's macros import only
    what they use, and only when a value is recomputed (no torch on a cache hit)."""

    def __init__(self, name: str):
        self.module_name = name

    def __getattr__(self, attribute: str):
        import importlib

        return getattr(importlib.import_module(self.module_name), attribute)


EXPRESSION = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
SET = re.compile(r"\{%\s*set\s+(\w+)\s*=\s*(.*?)\s*%\}", re.DOTALL)
OTHER_JINJA = re.compile(r"\{%|\{#|\{\{-|-\}\}")  # anything but {{ x }} and {% set %}


def page_template(markdown: str):
    """``(sets, expressions)`` of a page made only of ``{{ x }}`` and ``{% set %}``;
    None for anything else (loops, comments, whitespace control, a name set twice)."""
    sets = {m[1]: m[2] for m in SET.finditer(markdown)}
    rest = SET.sub("", markdown)
    if OTHER_JINJA.search(rest) or len(sets) != len(SET.findall(markdown)):
        return None
    return sets, sorted({m[1].strip() for m in EXPRESSION.finditer(rest)})


@lru_cache(maxsize=4096)
def parsed_expression(expression: str):
    """The Jinja syntax tree of ``{{ expression }}`` (read, never changed)."""
    from jinja2 import Environment

    return Environment().parse("{{ " + expression + " }}")


@lru_cache(maxsize=4096)
def _free_names(expression: str) -> frozenset[str]:
    from jinja2 import meta

    return frozenset(meta.find_undeclared_variables(parsed_expression(expression)))


@lru_cache(maxsize=4096)
def attributes_read(expression: str, name: str) -> frozenset[str] | None:
    """The attributes ``name.x`` a Jinja expression reads of ``name``; None if it
    uses ``name`` otherwise (passes it, indexes it...)."""
    from jinja2 import nodes

    parsed = parsed_expression(expression)
    reads = [
        node.attr
        for node in parsed.find_all(nodes.Getattr)
        if isinstance(node.node, nodes.Name) and node.node.name == name
    ]
    uses = [node for node in parsed.find_all(nodes.Name) if node.name == name]
    return frozenset(reads) if len(reads) == len(uses) else None


def module_for_expressions(module: str, name: str, expressions, root: Path) -> str:
    """What of ``module`` (bound to ``name``) the expressions can read, as source:
    the part of it their ``name.x`` reach (`module_part`), else ``import module``."""
    read = [attributes_read(expression, name) for expression in expressions]
    if None not in read:
        source = module_source(module, root)
        if (part := module_part(source, frozenset().union(*read))) is not None:
            return part
    return f"import {module}"


@lru_cache(maxsize=256)
def template_names(markdown: str) -> frozenset[str]:
    """Free variables of a whole Jinja template (a page Jinja renders whole)."""
    from jinja2 import Environment, meta

    return frozenset(meta.find_undeclared_variables(Environment().parse(markdown)))


def names_in(expression: str) -> set[str]:
    """Free variables of a Jinja expression (default delimiters)."""
    return set(_free_names(expression))


def needed_sets(expression: str, sets: dict[str, str]) -> dict[str, str]:
    """The ``{% set %}`` statements ``expression`` reads, transitively, page order."""
    needed, todo = set(), names_in(expression)
    while todo:
        name = todo.pop()
        if name in sets and name not in needed:
            needed.add(name)
            todo |= names_in(sets[name])
    return {name: value for name, value in sets.items() if name in needed}


def render_expressions(markdown: str, evaluate, key_of, store: Store):
    """The page with every ``{{ x }}`` replaced by its value, computed only on a miss.

    ``key_of(expression, sets)`` is the value's key (None: not cacheable);
    ``evaluate(expressions, sets)`` renders the missing ones. None if the page is
    not made only of expressions and ``{% set %}`` (then Jinja renders it whole).
    """
    template = page_template(markdown)
    if template is None:
        return None
    sets, expressions = template
    keys = {e: key_of(e, needed_sets(e, sets)) for e in expressions}
    values = {e: store.get(key) for e, key in keys.items() if key}
    missing = [e for e in expressions if values.get(e) is None]
    if missing:
        wanted = {n: v for e in missing for n, v in needed_sets(e, sets).items()}
        order = {n: v for n, v in sets.items() if n in wanted}
        for expression, value in zip(missing, evaluate(missing, order), strict=True):
            data = value.encode()
            values[expression] = (
                store.put(keys[expression], data) if keys[expression] else data
            )
    page = EXPRESSION.sub(
        lambda m: values[m[1].strip()].decode(), SET.sub("", markdown)
    )
    return page[:-1] if page.endswith("\n") else page  # as Jinja: one newline dropped


# Their output depends on the page: its URL and (Figure N) the order of its figures.
FIGURE_MACROS = ("figure", "figref", "widget_attributes")
FIGURE_CALL = re.compile(r"""\bfigure\(\s*["']([^"']+)["']\s*\)""")
FIGURE_SPECS: dict = {}  # slug -> its fields (alt...), set by hooks/build_assets.py
WIDGET_ATTRIBUTES: dict[str, str] = {}  # widget name -> its data-* attributes


def macro_key(plugin, modules: dict[str, str], macros_source: str, root: Path):
    """``key_of`` for a mkdocs-macros page: None if a name is not one we can key."""
    meta = getattr(plugin.page, "meta", {})

    def key_of(expression: str, sets: dict[str, str], whole=False) -> str | None:
        """Key of one value, or (``whole``) of a page ``expression`` Jinja renders."""
        free = template_names(expression) if whole else names_in(expression)
        names = set().union(free, *map(names_in, sets.values()))
        names -= set(sets)
        known = set(modules) | set(plugin.macros) | set(meta)
        if not names <= known:
            return None
        read = [expression, *sets.values()]
        imports = "".join(
            "\n" + (f"import {modules[n]}" if whole else
                    module_for_expressions(modules[n], n, read, root))
            for n in sorted(names & set(modules))
        )  # fmt: skip
        extra = [expression, sets, {n: meta[n] for n in names & set(meta)}]
        if names & set(FIGURE_MACROS):
            order = FIGURE_CALL.findall(plugin.page.file.content_string)
            extra += [plugin.page.url, order, FIGURE_SPECS, WIDGET_ATTRIBUTES]
        libraries = ("mkdocs-macros-plugin", "jinja2")
        extra += [macros_source, dependency_digest(macros_source, root).hex()]
        return artifact_key(imports, root, *extra, libraries=libraries)  # theirs

    return key_of


def cache_macros(plugin, modules: dict[str, str], macros_file: Path, store: Store):
    """Make the macros plugin render a page's values from ``store`` when it can."""
    original = plugin.render
    root = macros_file.parents[1]

    def evaluate(expressions, sets):
        statements = "".join(f"{{% set {n} = {v} %}}" for n, v in sets.items())
        variables = {**plugin.variables, **getattr(plugin.page, "meta", {})}
        body = "\0".join("{{ " + e + " }}" for e in expressions)
        return plugin.env.from_string(statements + body).render(**variables).split("\0")

    def render(markdown: str, force_rendering: bool = False) -> str:
        if getattr(plugin.page, "meta", {}).get("render_macros") is not True:
            return original(markdown, force_rendering)
        key_of = macro_key(
            plugin, modules, macros_file.read_text(encoding="utf-8"), root
        )
        page = render_expressions(markdown, evaluate, key_of, store)
        if page is not None:
            return page
        key = key_of(markdown, {}, whole=True)  # loops...: the page as one value
        cached = store.get(key) if key else None
        if cached is None:
            cached = original(markdown, force_rendering).encode()
            if key:
                store.put(key, cached)
        return cached.decode()

    plugin.render = render
    return plugin
