"""What the browser tests share besides their fixtures (tests/api/conftest.py): Debian's
chromium, how long to wait, and the page's state as its URL holds it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

    from tests.api.server import Server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# The probe's flags: no sandbox as root, and nothing that reaches for the network.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
# How long an expectation waits for its condition. Playwright's default, 5 s, failed the map
# view's test on a busy machine (issue 30); a condition met returns at once, so a generous
# bound costs nothing when things go well. Actions (click, fill) already wait 30 s.
WAIT_MS = 60_000


def _wait_patiently() -> None:
    try:
        from playwright.sync_api import expect
    except ImportError:  # no Playwright: the browser tests skip themselves
        return
    expect.set_options(timeout=WAIT_MS)


# Every browser test imports this module (CHROMIUM), so every expectation waits as long.
_wait_patiently()


def launch(pw: Playwright) -> Browser:
    """Debian's chromium, given as long to start as an expectation to hold: a cold start
    on a busy machine takes longer than Playwright's 30 s."""
    return pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=WAIT_MS)


def params_of(page: Page) -> dict[str, list[str]]:
    """The page's search state, as its URL holds it."""
    return parse_qs(urlsplit(page.url).query)


def units_in_view(page: Page) -> int:
    """How many results (a card, or a member under its class) are whole in the window."""
    return int(page.evaluate("""() => [...document.querySelectorAll(".hit .head")].filter((h) => {
        const box = h.parentElement.getBoundingClientRect();
        const code = h.nextElementSibling.getBoundingClientRect();
        return box.top >= 0 && code.bottom <= window.innerHeight;
    }).length"""))


@contextmanager
def searched(server: Server, query: str, mode: str) -> Iterator[Page]:
    """A browser page that has run one search in ``mode`` and shows its results."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        page = browser.new_page()
        page.goto(server.url + "/")
        expect(page.locator("#collection option")).to_have_count(1)
        page.fill("#query", query)
        page.click("#options-toggle")
        page.check(f"input[name=mode][value={mode}]")
        page.click("button[type=submit]")
        expect(page.locator(".hit").first).to_be_visible()
        try:
            yield page
        finally:
            browser.close()
