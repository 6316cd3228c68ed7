"""A reader's route: install the wheel the site serves, then run what the site shows.

The unit tests build the wheel as the site build does and check what is in it; the
build tests serve the built site, ``pip install`` the wheel by its URL into a fresh
venv holding only NumPy and torch (and what torch requires), and run every copyable
block of every page, each downloadable notebook and the lab's command line there.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from io import BytesIO
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from posenc_docs.pages.install import WHEEL, WHEEL_PATH
from tests.conftest import ROOT
from tests.test_hooks import load
from tests.test_site_build import run_page_blocks

wheel_hook = load("wheel")


def project_files(*names: str) -> list[str]:
    """Files git would commit under ``posenc_docs`` (and ``names``): what hatchling
    picks, since it skips what ``.gitignore`` ignores."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"]
        + ["posenc_docs", *names],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [name for name in listed.stdout.split() if (ROOT / name).is_file()]


def copy_package(destination: Path, reverse: bool) -> Path:
    """What the wheel is built from, written in forward or reverse file order."""
    names = ["pyproject.toml", "PACKAGE.md", "LICENSE", ".gitignore"]
    for name in sorted(project_files(*names), reverse=reverse):
        (destination / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, destination / name)
    return destination


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> bytes:
    project = copy_package(tmp_path_factory.mktemp("forward"), reverse=False)
    files = wheel_hook.wheel_files(project, tmp_path_factory.mktemp("cache"))
    assert list(files) == [WHEEL_PATH]
    return files[WHEEL_PATH]


@pytest.mark.parametrize("name", ["LICENSE", "PACKAGE.md", ".gitignore"])
def test_the_wheels_cache_key_follows_every_file_hatchling_reads(tmp_path, name):
    """The wheel is cached by a digest of what it is built from: the licence
    hatchling copies in, the readme it describes it with and the .gitignore that
    leaves files out each change it (a LICENSE added later kept the old key)."""
    project = copy_package(tmp_path, reverse=False)
    before = wheel_hook.wheel_digest(project)
    with open(project / name, "a") as file:
        file.write("\n# an edit\n")
    assert wheel_hook.wheel_digest(project) != before


def test_wheel_holds_the_package_and_nothing_else(wheel):
    names = zipfile.ZipFile(BytesIO(wheel)).namelist()
    tracked = project_files()
    info = f"posenc_docs-{WHEEL.split('-')[1]}.dist-info/"
    assert set(names) == set(tracked) | {
        info + n for n in ("METADATA", "WHEEL", "RECORD", "licenses/LICENSE")
    }
    assert {"posenc_docs/py.typed", "posenc_docs/lab/results.json"} <= set(names)


def test_wheel_metadata_names_numpy_and_torch_and_an_optional_matplotlib(wheel):
    archive = zipfile.ZipFile(BytesIO(wheel))
    meta = archive.read(next(n for n in archive.namelist() if n.endswith("METADATA")))
    lines = meta.decode().splitlines()
    requires = [
        line.split(": ", 1)[1] for line in lines if line.startswith("Requires-Dist")
    ]
    assert [r.split(">")[0] for r in requires] == ["numpy", "torch", "matplotlib"]
    assert requires[-1].endswith("extra == 'figures'")
    assert "License-Expression: MIT" in lines and "Classifier: Typing :: Typed" in lines
    description = meta.decode().split("\n\n", 1)[1]  # the body after the headers
    assert description.strip() == (ROOT / "PACKAGE.md").read_text().strip()
    assert "make serve" not in description  # not the contributors' README


def test_wheel_bytes_do_not_depend_on_file_order_or_times(wheel, tmp_path):
    project = copy_package(tmp_path / "reverse", reverse=True)
    os.utime(project / "posenc_docs" / "__init__.py", (0, 0))
    again = wheel_hook.wheel_files(project, tmp_path / "cache")[WHEEL_PATH]
    assert hashlib.sha256(again).hexdigest() == hashlib.sha256(wheel).hexdigest()
    stamps = {i.date_time for i in zipfile.ZipFile(BytesIO(wheel)).infolist()}
    assert stamps == {(2026, 1, 1, 0, 0, 0)}  # SOURCE_DATE_EPOCH, not the files'


def test_make_dist_builds_the_same_wheel_from_its_sdist(wheel, tmp_path):
    project = copy_package(tmp_path / "project", reverse=False)
    built = wheel_hook.build_dist(project, tmp_path / "dist")
    assert [p.name for p in built] == [WHEEL, WHEEL.split("-py3")[0] + ".tar.gz"]
    assert built[0].read_bytes() == wheel


def test_importing_the_package_loads_numpy_and_torch_and_nothing_else():
    script = """
import pathlib, sys
import numpy, torch
before = {name.split(".")[0] for name in sys.modules}
import posenc_docs
top = pathlib.Path(posenc_docs.__file__).parent
for path in sorted(top.rglob("*.py")):
    parts = path.relative_to(top.parent).with_suffix("").parts
    if parts[1] not in ("figures", "examples") and parts[-1] != "__main__":
        __import__(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
new = {name.split(".")[0] for name in sys.modules} - before
print(sorted(new - set(sys.stdlib_module_names) - {"posenc_docs"}))
"""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.strip() == "[]"


def test_install_pointer_goes_under_the_title_of_pages_that_import_the_package():
    code = '<pre><span></span><code><span class="kn">from</span> <span class="nn">'
    page = f"<h1>T</h1><p>x</p>{code}posenc_docs.rope</span> import x</code></pre>"
    other = f"<h1>T</h1><p><code>posenc_docs</code></p>{code}numpy</span></code></pre>"
    assert wheel_hook.imports_package(page)
    assert not wheel_hook.imports_package(other)
    with_pointer = wheel_hook.with_install_pointer(page, "../install/")
    assert with_pointer.startswith('<h1>T</h1>\n<p class="posenc-install">')
    assert 'href="../install/"' in with_pointer


# The reader's venv: a fresh venv whose site-packages holds NumPy, torch and what
# torch requires, and nothing else. Installing torch's 700 MB wheel took 20-40 s a
# run, so these are links to the copies this interpreter imports (the lock's pins);
# `python -I` in the venv sees only them. The wheel is a real install, by its URL.
def requirement_closure(names=("numpy", "torch")) -> list[metadata.Distribution]:
    """These distributions and, transitively, what they require (no extras)."""
    found, todo = {}, list(names)
    while todo:
        dist = metadata.distribution(todo.pop())
        if canonicalize_name(dist.name) not in found:
            found[canonicalize_name(dist.name)] = dist
            required = [Requirement(line) for line in dist.requires or []]
            todo += [r.name for r in required if not r.marker or r.marker.evaluate()]
    return list(found.values())


def make_reader_venv(venv: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    site = next((venv / "lib").glob("python*/site-packages"))
    for dist in requirement_closure():
        tops = {Path(f).parts[0] for f in dist.files if not str(f).startswith("..")}
        for top in tops - {"__pycache__"}:
            (site / top).symlink_to(dist.locate_file(top))
    return venv


def reader_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}


def in_venv(venv: Path, *args, cwd: Path, timeout: int = 300):
    return subprocess.run(
        [venv / "bin" / "python", *args],
        cwd=cwd,
        env=reader_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def reader(site_url, tmp_path_factory) -> Path:
    """The reader's venv with the wheel just installed from the served site; pip
    finds NumPy and torch there (``--no-index``: it may fetch nothing else)."""
    venv = make_reader_venv(tmp_path_factory.mktemp("reader") / "venv")
    pip = [sys.executable, "-m", "pip", "--python", venv / "bin" / "python"]
    url = f"{site_url}/{WHEEL_PATH}"
    result = subprocess.run(
        [*pip, "install", "--no-index", "--no-cache-dir", url],
        cwd=venv.parent,
        env=reader_env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return venv


@pytest.mark.build
def test_reader_venv_holds_numpy_torch_what_torch_needs_and_the_wheel(reader, tmp_path):
    script = "import importlib.metadata as m, json\n"
    script += "print(json.dumps([d.name for d in m.distributions()]))"
    listed = in_venv(reader, "-I", "-c", script, cwd=tmp_path)
    installed = {canonicalize_name(name) for name in json.loads(listed.stdout)}
    expected = {canonicalize_name(d.name) for d in requirement_closure()}
    assert installed == expected | {"posenc-docs"}, listed.stderr
    assert not installed & {"matplotlib", "mkdocs", "pytest", "beautifulsoup4"}
    where = in_venv(
        reader, "-I", "-c", "import posenc_docs as p; print(p.__file__)", cwd=tmp_path
    )
    assert Path(where.stdout.strip()).is_relative_to(reader), (
        where.stdout + where.stderr
    )


@pytest.mark.build
def test_every_copyable_block_runs_from_the_installed_wheel(
    reader, site_dir, html_pages, tmp_path
):
    python = [reader / "bin" / "python"]
    assert run_page_blocks(site_dir, html_pages, tmp_path, python, reader_env()) >= 50


@pytest.mark.build
def test_downloadable_notebooks_run_from_the_installed_wheel(
    reader, site_dir, tmp_path
):
    notebooks = sorted((site_dir / "notebooks").glob("*/*.py"))
    assert len(notebooks) >= 2
    for notebook in notebooks:
        result = in_venv(reader, "-I", notebook, cwd=tmp_path)
        assert result.returncode == 0, f"{notebook.name}:\n{result.stderr[-3000:]}"


@pytest.mark.build
def test_lab_runs_from_the_installed_wheel_and_writes_only_where_told(reader, tmp_path):
    lab = in_venv(reader, "-I", "-m", "posenc_docs.lab", "--help", cwd=tmp_path)
    assert lab.returncode == 0 and "--out" in lab.stdout, lab.stderr
    assert "Nothing is written into the installed package" in lab.stdout
    package = next((reader / "lib").glob("python*/site-packages/posenc_docs"))
    before = {p: p.stat().st_mtime_ns for p in package.rglob("*") if p.suffix != ".pyc"}
    out = tmp_path / "smoke.json"
    # one process: the two-process pool is test_lab's (it cost 4 CPU-s more here)
    args = ["-I", "-m", "posenc_docs.lab", "--smoke", "--workers", "1", "--out", out]
    smoke = in_venv(reader, *args, cwd=tmp_path)
    assert smoke.returncode == 0, smoke.stderr[-3000:]
    results = json.loads(out.read_text())
    assert set(results["perplexity"]["runs"]) >= {"rope", "alibi"}
    assert set(results["passkey"]["runs"]) >= {"rope", "alibi", "ft_yarn"}
    after = {p: p.stat().st_mtime_ns for p in package.rglob("*") if p.suffix != ".pyc"}
    assert after == before
