"""Every page on a 1280 px desktop in the dark scheme, one after another in one
tab, each then narrowed to 390 px: the checks of every load and no overflow."""

import pytest

from tests.page_checks import check_loaded, check_narrow

pytestmark = pytest.mark.browser


def test_every_page_on_a_desktop_in_dark(guarded, site_url, html_pages):
    """Page after page at 1280 px in one tab, each then narrowed to 390 px."""
    tab, figures = guarded(color_scheme="dark").without_cache(), 0  # checks fetches
    for page in html_pages:
        tab.page.set_viewport_size({"width": 1280, "height": 900})
        tab.requested.clear()
        tab.open(f"{site_url}/{page.parent.as_posix()}/")
        figures += check_loaded(tab, page, "dark")
        tab.page.set_viewport_size({"width": 390, "height": 844})
        check_narrow(tab, page)
        assert tab.errors == [], f"{page} at 390 px: {tab.errors}"
    assert figures >= 20
