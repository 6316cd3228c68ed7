"""The test run's own plumbing (tests/conftest.py): `make test` builds the site in
the background, so the files that need no site go first and the others wait for
the build's exit status."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import pytest_collection_modifyitems, wait_for_the_build


def test_waiting_ends_when_the_build_succeeded(tmp_path):
    (tmp_path / "site.status").write_text("0\n")
    wait_for_the_build(tmp_path / "site.status", timeout_s=1)


def test_a_failed_build_fails_the_test_with_its_log(tmp_path):
    (tmp_path / "site.status").write_text("1\n")
    (tmp_path / "site.log").write_text("ERROR - Doc file 'x.md' contains a bad link")
    with pytest.raises(pytest.fail.Exception, match=r"exit 1\):\n.*bad link"):
        wait_for_the_build(tmp_path / "site.status", timeout_s=1)


def test_no_status_in_time_is_an_error(tmp_path):
    with pytest.raises(AssertionError, match="no build status"):
        wait_for_the_build(tmp_path / "site.status", timeout_s=0.3)


def item(path: str, *markers: str):
    """A stand-in for a collected test: its file and its markers."""

    def iter_markers(name):
        return iter([name] if name in markers else [])

    return SimpleNamespace(path=Path(path), iter_markers=iter_markers)


def test_files_that_need_no_site_run_first_each_group_slowest_first():
    items = [
        item("tests/test_rope.py"),
        item("tests/test_browser.py", "browser"),
        item("tests/test_figures.py"),  # its other test needs the site
        item("tests/test_figures.py", "build"),
        item("tests/test_pages_phone_light.py", "browser"),
        item("tests/test_lab.py"),
    ]
    pytest_collection_modifyitems(items)
    assert [i.path.name for i in items] == [
        "test_lab.py",
        "test_rope.py",
        "test_pages_phone_light.py",
        "test_browser.py",
        "test_figures.py",
        "test_figures.py",
    ]
