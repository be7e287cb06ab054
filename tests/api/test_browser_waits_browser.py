"""The browser tests' expectations wait longer than Playwright's 5 s default (issue 30: the
map view's test timed out on a busy machine)."""

from __future__ import annotations

import pytest

from tests.api.browser import CHROMIUM, WAIT_MS, launch

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

# Past Playwright's default bound, well within ours.
LATE_MS = 6_000


def test_an_expectation_waits_for_a_condition_met_after_five_seconds() -> None:
    from playwright.sync_api import expect, sync_playwright

    assert WAIT_MS >= 30_000
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page()
            page.set_content(f"""<p id="late" hidden>drawn</p><script>
                setTimeout(() => {{ document.getElementById("late").hidden = false; }},
                           {LATE_MS});</script>""")
            expect(page.locator("#late")).to_be_visible()
        finally:
            browser.close()
