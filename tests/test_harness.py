"""The test run's own plumbing (tests/conftest.py): `make test` builds the site in
the background, so the files that need no site go first and the others wait for
the build's exit status."""

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import (
    axe_violations,
    guarded_page,
    pytest_collection_modifyitems,
    serve,
    wait_for_the_build,
)


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


# An image without alt text (critical) and grey text on white (serious), beside
# violations only moderate: no main landmark, text outside any landmark, a heading
# level skipped.
AXE_PAGE = """<!doctype html><html lang="en"><head><title>axe</title></head><body>
<h1>Page</h1><h3>Skipped a level</h3><img src="data:," width="10" height="10">
<p style="color: #bbb; background: #fff">Pale text.</p></body></html>"""
EVERY_RULE = """async () => (await axe.run(document, { resultTypes: ['violations'] }))
  .violations.map(v => [v.id, v.impact])"""


@pytest.mark.browser
def test_axe_reports_what_a_run_of_every_rule_finds_serious_or_critical(
    browser, tmp_path
):
    """`axe_violations` runs only the rules that can find something serious or
    critical: it reports what axe's default run does at those impacts."""
    (tmp_path / "index.html").write_text(AXE_PAGE)
    with serve(tmp_path) as url:
        tab = guarded_page(browser)
        tab.open(f"{url}/")
        found = sorted((v["id"], v["impact"]) for v in axe_violations(tab.page))
        every = tab.page.evaluate(EVERY_RULE)
        tab.page.context.close()
    assert found == [("color-contrast", "serious"), ("image-alt", "critical")]
    assert sorted(tuple(v) for v in every if v[1] in ("serious", "critical")) == found
    assert {impact for _, impact in every} >= {"moderate"}  # and those were left out


# After load, a request answered, then another started by the script reading it,
# a frame later and on a zero timer: a late chain like a widget's module imports.
CHAINED_PAGE = """<!doctype html><html lang="en"><head><title>chain</title></head>
<body><script>
addEventListener('load', () => fetch('a.txt').then(r => r.text()).then(() =>
  requestAnimationFrame(() => setTimeout(() => fetch('b.txt'), 0))));
</script></body></html>"""


@pytest.mark.browser
@pytest.mark.parametrize("javascript", [True, False])
def test_settling_waits_for_requests_the_page_starts_after_its_responses(
    browser, tmp_path, javascript
):
    """`GuardedPage.open` returns once nothing is in flight and the page has gone
    idle: the request the script starts after an answered one is recorded, and
    finished. Without scripts there is none."""
    (tmp_path / "index.html").write_text(CHAINED_PAGE)
    for name in ("a.txt", "b.txt"):
        (tmp_path / name).write_text(name)
    with serve(tmp_path) as url:
        tab = guarded_page(browser, javascript=javascript).open(f"{url}/")
        requested, in_flight = list(tab.requested), set(tab._in_flight)
        tab.page.context.close()
    expected = ["", "a.txt", "b.txt"] if javascript else [""]
    assert requested == [f"{url}/{name}" for name in expected]
    assert in_flight == set()
