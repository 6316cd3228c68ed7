"""Every page on a 390 px phone in the light scheme, one after another in one tab
as a phone reader goes: the checks of every load, the bytes a cold reader downloads
and layout shift (issue 12), and no serious or critical axe-core violation."""

import json
import statistics
from collections import Counter

import pytest

from tests.conftest import axe_violations
from tests.page_checks import FORMULAS, check_loaded, check_narrow

pytestmark = pytest.mark.browser
# Display formulas that scroll sideways at 390 px, by page: the d x d matrix R_m.
# Others are written to fit (`aligned` lines; phone math is 1.1em, extra.css).
WIDE_FORMULAS = {"part2/04-rope": 1}


def test_every_page_on_a_phone_in_light(guarded, site_url, html_pages):
    """Page after page at 390 px in one tab, as a phone reader goes (with
    the cache off): gzip bytes a cold reader downloads and layout shift (issue 12),
    the checks of every load, no overflow, and no serious or critical axe-core
    violation: only the formulas of WIDE_FORMULAS are wider than the phone, and they
    take keyboard focus to scroll."""
    from benchmarks.pages import measure_page

    tab, sizes, figures, found, wide = guarded(width=390), {}, 0, {}, Counter()
    known = {}  # url -> gzip bytes: the site does not change during the test
    url = {page: f"{site_url}/{page.parent.as_posix()}/" for page in html_pages}
    for page in html_pages:
        tab.requested.clear()
        result = measure_page(tab, url[page], known)
        shift = f"{page}: layout shift {result['cls']:.3f}: {result['shifts']}"
        assert result["cls"] <= 0.02, shift
        assert result["gzip"] <= 300_000, f"{page}: {result['gzip']:,} gzip bytes"
        sizes[page] = result["gzip"]
        figures += check_loaded(tab, page, "light")
        check_narrow(tab, page)
        tab.page.wait_for_selector("html[data-posenc-widgets=ready]", state="attached")
        if violations := axe_violations(tab.page):
            found[page.parent.as_posix()] = violations
        for scrolls, focusable in tab.page.evaluate(FORMULAS):
            assert scrolls == focusable, f"{page}: a formula scrolls={scrolls}"
            if scrolls:
                wide[page.parent.as_posix()] += 1
    assert figures >= 20
    assert wide == WIDE_FORMULAS, f"display formulas wider than a phone: {wide}"
    assert found == {}, json.dumps(found, indent=1)
    assert statistics.median(sizes.values()) <= 160_000, sizes
    first = html_pages[0]  # loaded again after all the others: still every byte
    assert measure_page(tab, url[first], known)["gzip"] == sizes[first]
