"""The build cache (hooks/build_cache.py): keys follow each artifact's imports, an
edit recomputes exactly what depends on it, and cached output is Jinja's output."""

import ast
import difflib
import hashlib
import importlib
import importlib.util
import modulefinder
import os
import re
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from jinja2 import Environment, StrictUndefined

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "hooks"))  # as MkDocs does for its hooks

import build_assets  # noqa: E402
import build_cache  # noqa: E402
import katex  # noqa: E402
import macros  # noqa: E402
import minify  # noqa: E402


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def relative(paths, root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in paths}


def test_dependencies_follow_imports_transitively_and_name_data_files(tmp_path):
    write(tmp_path, {
        "posenc_docs/__init__.py": "",
        "posenc_docs/a.py": "import numpy\nfrom posenc_docs import b\n",
        "posenc_docs/b.py": "from .sub import c\n",
        "posenc_docs/sub/__init__.py": "",
        "posenc_docs/sub/c.py": 'TABLE = "table.json"\n',
        "posenc_docs/sub/table.json": "{}",
        "posenc_docs/sub/d.py": "",  # never imported
        "posenc_docs/e.py": "import torch\n",  # never imported
    })  # fmt: skip
    deps = build_cache.dependencies("from posenc_docs.a import f\n", tmp_path)
    assert relative(deps, tmp_path) == {
        "posenc_docs/__init__.py", "posenc_docs/a.py", "posenc_docs/b.py",
        "posenc_docs/sub/__init__.py", "posenc_docs/sub/c.py",
        "posenc_docs/sub/table.json",
    }  # fmt: skip
    magic = "!pip install x\nfrom posenc_docs import e\n"  # a notebook cell
    assert "posenc_docs/e.py" in relative(
        build_cache.dependencies(magic, tmp_path), tmp_path
    )
    write(tmp_path, {"posenc_docs/examples/x/script.py": "import posenc_docs.e\n"})
    runs = 'runpy.run_path(root / "examples/x/script.py")\n'  # a script it runs
    assert {"posenc_docs/examples/x/script.py", "posenc_docs/e.py"} <= relative(
        build_cache.dependencies(runs, tmp_path), tmp_path
    )


def artifacts(root: Path) -> dict[str, tuple[str, str]]:
    """Every cached artifact of the site in ``root``: name -> (source, module)."""
    found = {}
    for module in build_assets.figure_modules(root):
        found[f"figure {module}"] = (f"import {module}\n", module)
        source = build_cache.module_source(module, root)
        for slug in slugs(module):  # each figure's SVGs: what that figure is made of
            made_of = build_assets.RENDERING + build_cache.figure_source(source, slug)
            found[f"figure {module} {slug}"] = (made_of, module)
    for path in sorted((root / "posenc_docs" / "examples").rglob("*.py")):
        found[f"example {path.relative_to(root)}"] = (path.read_text(), None)
    for path in sorted((root / "docs" / "notebooks").glob("*.py")):
        found[f"notebook {path.name}"] = (path.read_text(), None)
    for name, module in macros.MODULES.items():
        found[f"macro {name}"] = (MACROS_SOURCE + f"\nimport {module}\n", name)
        source = build_cache.module_source(module, root)
        functions = public_functions(source)
        for function in set(functions[:1] + functions[-1:]):  # what a value reads
            part = build_cache.module_part(source, frozenset({function}))
            found[f"macro {name}.{function}"] = (MACROS_SOURCE + "\n" + part, name)
    return found


def public_functions(source: str) -> list[str]:
    tree = ast.parse(source)
    defined = (n.name for n in tree.body if isinstance(n, ast.FunctionDef))
    return [name for name in defined if not name.startswith("_")]


MACROS_SOURCE = (ROOT / "hooks" / "macros.py").read_text()
PLUGIN = SimpleNamespace(  # what macro_key reads of the mkdocs-macros plugin
    page=SimpleNamespace(meta={}, url="part1/"), macros={"fixed": None}
)


def slugs(module: str) -> list[str]:
    """The slug of every figure that figure module ``module`` lists (as checked out)."""
    listed = getattr(importlib.import_module(module), "FIGURES", [])
    return [spec.slug for spec in listed]


def keys(root: Path) -> dict[str, str]:
    """The key the build gives each artifact (figures in one theme)."""
    figure_keys = build_assets.figure_keys(root)
    result = {}
    for name, (source, module) in artifacts(root).items():
        if name.startswith("figure") and name.count(" ") == 2:
            result[name] = build_assets.figure_key(module, name.split()[2], root)
        elif name.startswith("figure"):
            result[name] = figure_keys[module]
        elif name.startswith("example"):
            result[name] = build_cache.example_key(source, root)
        elif name.startswith("notebook"):
            path = root / "docs" / "notebooks" / name.split()[1]
            own = build_cache.notebook_key(lambda *args: "mkdocs-jupyter's", root)
            result[name] = own(str(path), {}, True)
        else:  # the module passed whole, or one of its functions called
            key_of = build_cache.macro_key(PLUGIN, macros.MODULES, MACROS_SOURCE, root)
            used = name.split()[1] + ("()" if "." in name else "")
            result[name] = key_of(f"fixed({used}, 2)", {})
    return result


def imported_files(source: str, root: Path, tmp: Path) -> set[str]:
    """Package files ``source`` imports, found by modulefinder (not by our ast)."""
    script = tmp / f"probe_{hashlib.sha256(source.encode()).hexdigest()[:12]}.py"
    script.write_text(source)
    finder = modulefinder.ModuleFinder(path=[str(root)])  # third-party: not found
    finder.run_script(str(script))
    files = (Path(m.__file__) for m in finder.modules.values() if m.__file__)
    return {p.relative_to(root).as_posix() for p in files if root in p.parents}


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """A copy of the package and notebooks, and each artifact's imported files."""
    root = tmp_path_factory.mktemp("repo")
    shutil.copytree(ROOT / "posenc_docs", root / "posenc_docs",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    shutil.copytree(ROOT / "docs" / "notebooks", root / "docs" / "notebooks")
    probes = tmp_path_factory.mktemp("probes")
    imports = {
        name: imported_files(source, root, probes)
        for name, (source, _) in artifacts(root).items()
    }
    return root, imports


@pytest.mark.parametrize(
    "module",
    ["posenc_docs/alibi.py", "posenc_docs/pages/format.py",
     "posenc_docs/figures/style.py", "posenc_docs/scaling.py"],
)  # fmt: skip
def test_editing_one_module_changes_exactly_the_keys_of_its_dependents(tree, module):
    root, imports = tree
    before = keys(root)
    original = (root / module).read_text()
    (root / module).write_text(original + "\n# an edit\n")
    try:
        after = keys(root)
    finally:
        (root / module).write_text(original)
    changed = {name for name in before if before[name] != after[name]}
    expected = {name for name, files in imports.items() if module in files}
    assert changed == expected
    assert 0 < len(changed) < len(before)  # the edit matters, and not everywhere
    assert keys(root) == before  # undone: every key is back, nothing drifted


def test_a_macro_value_is_keyed_by_the_functions_it_calls(tree):
    root, _ = tree
    key_of = build_cache.macro_key(PLUGIN, macros.MODULES, MACROS_SOURCE, root)
    values = {
        "decay": ("fixed(part2_basics.rope_decay_range(1000, 65536)[0], 1)", {}),
        "penalty": ("fixed(part2_basics.alibi_penalty(8, 100), 2)", {}),
        "set": ("fixed(d, 2)", {"d": "part2_basics.rope_decay_range(1, 9)[1]"}),
        "whole": ("fixed(part2_basics, 2)", {}),  # the module itself: all of it
    }
    before = {name: key_of(*value) for name, value in values.items()}
    alibi = root / "posenc_docs" / "alibi.py"
    original = alibi.read_text()
    alibi.write_text(original + "\n# an edit\n")
    try:
        after = {name: key_of(*value) for name, value in values.items()}
    finally:
        alibi.write_text(original)
    changed = {name for name in values if before[name] != after[name]}
    assert changed == {"penalty", "whole"}  # rope_decay_range reads no ALiBi


def test_attributes_read_of_a_name_in_an_expression():
    read = build_cache.attributes_read
    assert read("fixed(m.f(1) + m.g[0], 2)", "m") == {"f", "g"}
    assert read("fixed(x.f(m.h), 2)", "m") == {"h"}
    assert read("count(m)", "m") is None  # passed whole
    assert read("m['f'](1)", "m") is None  # indexed: any of its names
    assert read("fixed(1, 2)", "m") == set()


def test_a_figure_is_made_of_what_its_spec_reaches_by_name():
    source = (
        '"""Doc."""\n'
        "import numpy as np\n"
        "from posenc_docs import a, b  # both\n"
        "from posenc_docs.figures.spec import FigureSpec\n"
        "np.seterr(all='raise')\n"  # binds no name: part of every figure
        "SIZE = 3\n"
        "SLUG = 'two'\n"
        "def helper(n):\n    return a.f(n) * SIZE\n"
        "def one(*, theme):\n    return helper(np.ones(2))\n"
        "def two(*, theme):\n    return b.g()\n"
        "FIGURES = [FigureSpec(slug='one', draw=one, alt='A'),\n"
        "           FigureSpec(slug=SLUG, draw=two, alt='B')]\n"
    )
    one = build_cache.figure_source(source, "one")
    assert "def helper" in one and "SIZE = 3" in one and "np.seterr" in one
    assert "from posenc_docs import a\n" in one and "b.g()" not in one
    assert one.endswith("FigureSpec(slug='one', draw=one, alt='A')")
    two = build_cache.figure_source(source, "two")  # its slug is a name
    assert "from posenc_docs import b\n" in two and "helper" not in two
    commented = source.replace("# both", "# a comment")
    assert build_cache.figure_source(commented, "one") == one
    assert build_cache.figure_source(source, "three") is None
    relative = source.replace("from posenc_docs import a, b", "from . import a, b")
    assert build_cache.figure_source(relative, "one") is None  # keyed by the module


def test_an_edit_redraws_only_the_figures_made_with_it(tree):
    root, _ = tree
    module_of = {s: m for m in build_assets.figure_modules(root) for s in slugs(m)}

    def svg_keys():
        return {s: build_assets.figure_key(m, s, root) for s, m in module_of.items()}

    before, modules_before = svg_keys(), build_assets.figure_keys(root)
    alibi = root / "posenc_docs" / "alibi.py"
    original = alibi.read_text()
    alibi.write_text(original + "\n# an edit\n")
    try:
        after, modules_after = svg_keys(), build_assets.figure_keys(root)
    finally:
        alibi.write_text(original)
    changed = {slug for slug in before if before[slug] != after[slug]}
    assert changed == {  # ALiBi's own, and those using pages.part2_basics or
        "part1-alibi-bias",  # pages.pitfalls, which import alibi
        "part2_basics-alibi-bias-heads",
        "part1-clock-periods",
        "part2_basics-sinusoidal-wavelengths-d512",
        "pitfalls-exponent-bug",
        "pitfalls-bf16-angles",
    }
    whole = {m for m in modules_before if modules_before[m] != modules_after[m]}
    assert len([s for s in module_of if module_of[s] in whole]) > 2 * len(changed)


def test_a_data_file_a_module_names_is_a_dependency(tree):
    root, _ = tree
    lab = "import posenc_docs.lab.results\n"
    assert "posenc_docs/lab/results.json" in relative(
        build_cache.dependencies(lab, root), root
    )


@pytest.mark.parametrize(
    "attribute, name, other",
    [
        ("version", "torch", "0.0-other"),  # a library that shapes every number
        ("requires", "posenc_docs", ["torch>=9.9"]),  # the install page prints them
    ],
)
def test_library_versions_and_our_requirements_are_part_of_every_key(
    monkeypatch, attribute, name, other
):
    source = "import posenc_docs.pages.install\n"
    before = build_cache.artifact_key(source, ROOT)
    real = getattr(build_cache.metadata, attribute)
    build_cache.versions.cache_clear()
    monkeypatch.setattr(
        build_cache.metadata, attribute, lambda n: other if n == name else real(n)
    )
    try:
        assert build_cache.artifact_key(source, ROOT) != before
    finally:
        build_cache.versions.cache_clear()


def test_examples_run_once_per_key(tmp_path):
    write(tmp_path, {"posenc_docs/__init__.py": "", "posenc_docs/a.py": "X = 1\n"})
    runs = []

    def run(code, returncode=None, session=None, id=None, **extra):  # noqa: A002
        runs.append(code)
        return f"output {len(runs)}\n"

    cached = build_cache.cached_run(run, build_cache.Store(tmp_path / "c"), tmp_path)
    code = "from posenc_docs import a\nprint(a.X)\n"
    assert cached(code) == cached(code) == "output 1\n"
    (tmp_path / "posenc_docs" / "a.py").write_text("X = 2\n")
    assert cached(code) == "output 2\n"
    assert cached(code, session="s") == "output 3\n"  # sessions share state: run
    assert len(runs) == 3


def test_an_example_cannot_change_the_next_ones_numpy_printing(tmp_path):
    import numpy as np

    def run(code, returncode=None, session=None, id=None, **extra):  # noqa: A002
        scope = {"np": np}
        exec(code, scope)
        return scope["out"]

    cached = build_cache.cached_run(run, build_cache.Store(tmp_path), tmp_path)
    assert cached("np.set_printoptions(sign=' ')\nout = str(np.array([0.5]))") == (
        "[ 0.5]"
    )
    assert cached("out = str(np.array([0.5]))") == "[0.5]"  # as when run alone


def test_changed_package_modules_are_forgotten(tmp_path, monkeypatch):
    """Even where Python caches bytecode and the edit keeps the file's size and
    modification time, which a ``.pyc`` is checked by (the import was stale)."""
    write(tmp_path, {"fakepkg/__init__.py": "", "fakepkg/m.py": "X = 1\n"})
    monkeypatch.setattr(build_cache, "PACKAGE", "fakepkg")
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.syspath_prepend(str(tmp_path))
    import fakepkg.m

    seen = {}
    assert not build_cache.forget_changed_modules(tmp_path, seen)  # first build
    assert not build_cache.forget_changed_modules(tmp_path, seen)  # nothing changed
    assert "fakepkg.m" in sys.modules
    module = tmp_path / "fakepkg" / "m.py"
    assert Path(importlib.util.cache_from_source(module)).is_file()
    stamp = module.stat().st_mtime_ns
    module.write_text("X = 2\n")
    os.utime(module, ns=(stamp, stamp))
    assert build_cache.forget_changed_modules(tmp_path, seen)
    assert "fakepkg.m" not in sys.modules and "fakepkg" not in sys.modules
    import fakepkg.m  # noqa: F811

    assert fakepkg.m.X == 2


PAGE = """Intro {{ f(1) }} and {{ g }}.
{% set a = f(2) %}
Then {{ a + 1 }}, again {{ f(1) }}.
"""


def test_page_values_are_jinja_output_and_computed_only_on_a_miss(tmp_path):
    env = Environment(undefined=StrictUndefined)
    calls = []

    def f(x):
        calls.append(x)
        return 10 * x

    variables = {"f": f, "g": "G"}

    def evaluate(expressions, sets):
        statements = "".join(f"{{% set {n} = {v} %}}" for n, v in sets.items())
        body = "\0".join("{{ " + e + " }}" for e in expressions)
        return env.from_string(statements + body).render(**variables).split("\0")

    def key_of(expression, sets):
        return hashlib.sha256(repr((expression, sets)).encode()).hexdigest()

    store = build_cache.Store(tmp_path)
    expected = env.from_string(PAGE).render(**variables)
    calls.clear()
    assert build_cache.render_expressions(PAGE, evaluate, key_of, store) == expected
    assert sorted(calls) == [1, 2]
    edited = "A new first line.\n" + PAGE  # a page edit: every value still cached
    expected = env.from_string(edited).render(**variables)
    calls.clear()
    assert build_cache.render_expressions(edited, evaluate, key_of, store) == expected
    assert calls == []
    loop = "{% for i in [1] %}{{ i }}{% endfor %}"  # not only values: Jinja renders
    assert build_cache.render_expressions(loop, evaluate, key_of, store) is None


def test_a_value_needs_only_the_sets_it_reads():
    sets = {"a": "f(1)", "b": "a + 1", "c": "g"}
    assert build_cache.needed_sets("b * 2", sets) == {"a": "f(1)", "b": "a + 1"}
    assert build_cache.names_in("count(x.y(z), 2)") == {"count", "x", "z"}


def test_importing_the_hooks_imports_no_torch():
    code = (
        "import sys; sys.path.insert(0, 'hooks')\n"
        "import build_cache, build_assets, macros, wheel\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
        "assert 'matplotlib' not in sys.modules, 'matplotlib imported'\n"
    )
    import subprocess

    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]


def test_katex_batches_come_from_the_cache_without_node(tmp_path):
    items = [("x^2", False), ("\\frac{1}{2}", True)]
    first = katex.KatexRenderer(ROOT, build_cache.Store(tmp_path))
    html = first.render(items, "p.md")
    first.close()
    again = katex.KatexRenderer(ROOT, build_cache.Store(tmp_path))
    assert again.render(items, "p.md") == html and 'class="katex"' in html[0]
    assert again._process is None  # Node never started
    with pytest.raises(Exception, match="invalid TeX on p.md"):
        again.render([("\\frac{1", False)], "p.md")
    again.close()


def test_minified_widgets_come_from_the_cache(tmp_path):
    widgets = tmp_path / "site" / "javascripts" / "widgets"
    widgets.mkdir(parents=True)
    source = "export function add(first, second) {\n  return first + second;\n}\n"
    (widgets / "a.js").write_text(source)
    store = build_cache.Store(tmp_path / "cache")
    assert minify.minify_widgets(tmp_path / "site", ROOT, store) == [widgets / "a.js"]
    once = (widgets / "a.js").read_text()
    assert len(once) < len(source) and "add" in once
    (widgets / "a.js").write_text(source)
    assert minify.minify_widgets(tmp_path / "site", ROOT, store) == []
    assert (widgets / "a.js").read_text() == once


def test_widgets_minified_from_their_sources_need_no_terser_at_the_end(tmp_path):
    sources, site = tmp_path / "docs", tmp_path / "site" / "javascripts" / "widgets"
    sources.mkdir()
    site.mkdir(parents=True)
    source = "export function add(first, second) {\n  return first + second;\n}\n"
    (sources / "a.js").write_text(source)
    (site / "a.js").write_text(source)  # MkDocs' copy
    store = build_cache.Store(tmp_path / "cache")
    assert minify.cache_minified([sources / "a.js"], ROOT, store) == [sources / "a.js"]
    assert (sources / "a.js").read_text() == source  # terser ran on a copy
    assert minify.cache_minified([sources / "a.js"], ROOT, store) == []
    assert minify.minify_widgets(tmp_path / "site", ROOT, store) == []
    minified = (site / "a.js").read_text()
    assert len(minified) < len(source) and "add" in minified


def test_changed_package_modules_are_forgotten_before_macros_imports_them():
    """On a serve rebuild mkdocs-macros imports hooks/macros.py, and the package's
    formatters with it, in its on_config. build_cache's on_config, which forgets
    the package modules that changed, must run first: else old code computes
    values cached under the new sources' keys, which later clean builds read (a
    review reproduced it by editing posenc_docs/pages/format.py under serve)."""
    from mkdocs.config import load_config

    config = load_config(str(ROOT / "mkdocs.yml"))
    order = [getattr(e, "__module__", "") for e in config.plugins.events["config"]]
    assert order.index("build_cache") < order.index("mkdocs_macros.plugin"), order


def digests(site: Path) -> dict[str, str]:
    return {
        p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(site.rglob("*"))
        if p.is_file()
    }


def changed_lines(cold: Path, rebuilt: Path, names: list[str]) -> str:
    """The lines that differ between the two builds' text files ``names``, so a
    failure says what changed (a notebook printed 4.1e-04 where the cold build
    printed 4.8e-07, once, in CI; not again in 64 runs of it on a busy machine)."""
    report = []
    text = (".html", ".json", ".svg", ".xml", ".js", ".css", ".py", ".ipynb", ".txt")
    for name in (n for n in names if n.endswith(text)):
        before, after = (
            re.split(r"(?<=>)|\n", (site / name).read_text("utf-8", "replace"))
            for site in (cold, rebuilt)
        )
        diff = difflib.unified_diff(before, after, "cold", "rebuilt", n=0, lineterm="")
        report.append(f"{name}:\n" + "\n".join(line[:200] for line in list(diff)[:40]))
    return "\n".join(report)


def cache_entries(project: Path) -> dict[str, set[str]]:
    cache = project / ".cache"
    kinds = ("figures", "examples", "notebooks", "macros")
    return {kind: {p.name for p in (cache / kind).glob("[!.]*")} for kind in kinds}


@pytest.mark.build
def test_a_module_edit_recomputes_its_dependents_into_the_cold_build(
    site_dir, tmp_path
):
    """A second build, in another directory, from site_dir's cache after a comment
    is appended to one module: it recomputes exactly the artifacts that import the
    module, and its every byte is the cold build's (site_dir), but for the wheel,
    which is the one a build of the edited tree makes. So two builds give the same
    bytes, wherever they run and whatever the cache holds."""
    from benchmarks.rebuild import export
    from posenc_docs.pages.install import WHEEL_PATH
    from tests.conftest import build_site
    from tests.test_hooks import load

    project = export("WORKTREE", tmp_path / "repo")
    shutil.copytree(ROOT / ".cache", project / ".cache")  # site_dir's
    warm = cache_entries(project)
    examples = sorted((project / "posenc_docs" / "examples").rglob("*.py"))
    run = [  # the examples a page executes: the build cached them
        p
        for p in examples
        if build_cache.example_key(p.read_text(), project) in warm["examples"]
    ]
    module = "posenc_docs/partial_rotary.py"  # 4 figures, 11 examples, a notebook
    with open(project / module, "a") as file:
        file.write("\n# an edit\n")

    def imports_module(source, name=None):
        files = build_cache.dependencies(source, project, name)
        return module in relative(files, project)

    rebuilt = build_site(tmp_path / "rebuilt", cwd=project)
    new = {k: v - warm[k] for k, v in cache_entries(project).items()}
    figures = {key for name, key in build_assets.figure_keys(project).items()
               if imports_module("", name)}  # fmt: skip
    for name in build_assets.figure_modules(project):  # and each figure's SVGs
        source = build_cache.module_source(name, project)
        for slug in slugs(name):
            made_of = build_assets.RENDERING + build_cache.figure_source(source, slug)
            if imports_module(made_of):
                figures.add(build_assets.figure_key(name, slug, project))
    assert new["figures"] == figures and figures
    assert new["examples"] == {
        build_cache.example_key(p.read_text(), project)
        for p in run if imports_module(p.read_text())
    }  # fmt: skip
    # site_dir is a strict build of the tree before the edit: a comment changes
    # no page, figure or output, only the wheel, which must be the one a cold
    # build of the edited tree makes (a second cold site build took ~60 s)
    first, cold = digests(rebuilt), digests(site_dir)
    assert first.keys() == cold.keys()
    differ = [name for name in first if first[name] != cold[name]]
    assert differ == [WHEEL_PATH], changed_lines(site_dir, rebuilt, differ)
    fresh = load("wheel").wheel_files(project, tmp_path / "empty-cache")[WHEEL_PATH]
    assert (rebuilt / WHEEL_PATH).read_bytes() == fresh


def test_a_page_jinja_renders_whole_is_keyed_by_the_modules_it_names(tree):
    root, _ = tree
    key_of = build_cache.macro_key(PLUGIN, macros.MODULES, MACROS_SOURCE, root)
    loop = "{% for m in models.MODELS %}- {{ fixed(m.x, 1) }}\n{% endfor %}"
    before = key_of(loop, {}, whole=True)
    models = root / "posenc_docs" / "pages" / "models.py"
    original = models.read_text()
    models.write_text(original + "\n# an edit\n")
    try:
        assert before is not None and key_of(loop, {}, whole=True) != before
    finally:
        models.write_text(original)
    assert key_of("{% for m in page.x %}{{ m }}{% endfor %}", {}, whole=True) is None


def test_dependencies_are_read_once_per_build_and_again_in_the_next(tmp_path):
    write(tmp_path, {"posenc_docs/__init__.py": "", "posenc_docs/a.py": "X = 1\n"})
    source = "from posenc_docs import a\n"
    before = build_cache.artifact_key(source, tmp_path)
    build_cache.begin_build()  # as on_config does
    try:
        assert build_cache.artifact_key(source, tmp_path) == before
        write(tmp_path, {"posenc_docs/a.py": "X = 2\n"})  # no build edits the package
        assert build_cache.artifact_key(source, tmp_path) == before
    finally:
        build_cache.on_post_build(None)
    after = build_cache.artifact_key(source, tmp_path)
    assert after != before
    write(tmp_path, {"posenc_docs/a.py": "X = 1\n"})  # outside a build: every call
    assert build_cache.artifact_key(source, tmp_path) == before


def test_a_script_named_before_it_exists_is_a_dependency_in_the_next_build(tmp_path):
    """`mkdocs serve` keeps its process: a page naming a package script that does
    not exist yet depends on it once it does (nothing is memoized across builds)."""
    write(tmp_path, {"posenc_docs/__init__.py": ""})
    source = 'runpy.run_path("examples/b.py")\n'
    for present in (False, True):
        build_cache.begin_build()  # as on_config does
        try:
            found = build_cache.dependencies(source, tmp_path)
        finally:
            build_cache.on_post_build(None)
        assert (tmp_path / "posenc_docs/examples/b.py" in found) is present
        write(tmp_path, {"posenc_docs/examples/b.py": "import posenc_docs\n"})


EXITING = """
import os, sys
sys.path.insert(0, {hooks!r})
import build_cache

class Noisy:  # in a reference cycle: only the cyclic collector would free it
    def __del__(self, write=os.write):
        write(1, b"collected at exit")

build_cache.on_startup(command="build", dirty=False)
cycle = Noisy()
cycle.me = cycle
del cycle
"""


def test_a_build_process_exits_without_collecting_its_objects():
    """Python collects every cycle at exit, which took 1-2 s after each build:
    the hook freezes the objects first (gc.freeze), so nothing is collected."""
    import subprocess

    script = EXITING.format(hooks=str(ROOT / "hooks"))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True)
    assert run.returncode == 0, run.stderr.decode()
    assert run.stdout == b""  # without on_startup: "collected at exit"


THRESHOLDS = """
import gc, sys
sys.path.insert(0, {hooks!r})
import build_cache
default = gc.get_threshold()
build_cache.on_startup(command="build", dirty=False)
build = gc.get_threshold()
gc.set_threshold(*default)
build_cache.draw_variant("part3_nope-temperatures", phone=False)  # as a worker
print([default, build, gc.get_threshold()])
"""


def test_builds_and_figure_workers_collect_cycles_less_often():
    """The cyclic collector runs a fourteenth as often as Python's default in a build
    and in the workers that draw its figures (1.7 of 11.5 CPU-s, now 0.6)."""
    import subprocess

    script = THRESHOLDS.format(hooks=str(ROOT / "hooks"))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=ROOT)
    assert run.returncode == 0, run.stderr.decode()
    default, build, worker = ast.literal_eval(run.stdout.decode())
    assert build == worker == build_cache.COLLECTOR_THRESHOLDS
    assert build[0] >= 10 * default[0]


SHARED_LINES = [
    "x = (1,\n     2); import posenc_docs.rope\n",
    "x = 1 + \\\n    2; from posenc_docs import alibi\n",
    "@decorator\ndef f():\n    import posenc_docs.scaling\n    return 'results.json'\n",
]


def test_facts_read_per_statement_equal_the_whole_modules():
    """Imports and file names gathered statement by statement (memoized per
    statement) are those of each module parsed whole."""
    paths = [*(ROOT / "posenc_docs").rglob("*.py"), *(ROOT / "hooks").glob("*.py")]
    for path in paths:
        source = path.read_text()
        whole = build_cache._tree_facts(ast.parse(source), "posenc_docs")
        assert build_cache._source_facts(source, "posenc_docs") == whole, path
    assert len(paths) > 100


@pytest.mark.parametrize("source", SHARED_LINES)
def test_facts_of_statements_sharing_a_line(source):
    whole = build_cache._tree_facts(ast.parse(source), None)
    assert build_cache._source_facts(source, None) == whole
    assert any(name.startswith("posenc_docs.") for name in whole[0])
