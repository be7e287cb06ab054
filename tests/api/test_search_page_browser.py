"""The search page in a real browser: Debian's chromium driven by Playwright."""

from __future__ import annotations

import re
import shutil
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.api.browser import CHROMIUM, launch, searched, units_in_view
from tests.api.server import Server, running_server

if TYPE_CHECKING:
    pass

STDLIB = Path(sysconfig.get_paths()["stdlib"])

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


@pytest.fixture(scope="module")
def page_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("page")
    repo = base / "repo"
    repo.mkdir()
    for name in ("shlex.py", "fnmatch.py"):
        shutil.copy(STDLIB / name, repo / name)
    index_folder(Store(base / "store"), repo, IndexOptions(name="stdlib"))
    with running_server(base / "store") as srv:
        yield srv


def test_query_shows_the_function_with_its_location(page_server: Server, tmp_path: Path) -> None:
    with searched(page_server, "split a string using shell-like syntax", "hybrid") as page:
        locations = page.locator(".hit .location").all_inner_texts()
        codes = page.locator(".hit .code").all_inner_texts()
        page.screenshot(path=str(tmp_path / "search-page.png"), full_page=True)
    hits = [(loc, code) for loc, code in zip(locations[:3], codes[:3], strict=True)
            if "shlex.py:" in loc and "def split(" in code]
    assert hits, locations
    assert (tmp_path / "search-page.png").stat().st_size > 10_000


def test_a_long_function_shows_its_range_and_a_few_lines_that_unfold(
    page_server: Server,
) -> None:
    from playwright.sync_api import expect

    with searched(page_server, "read_token", "lexical") as page:
        unit = page.locator(".unit", has=page.locator(
            ":scope > .head .symbol", has_text="read_token")).first
        location = unit.locator(":scope > .head .location").inner_text()
        found = re.fullmatch(r"(?:\d+\. )?shlex\.py:(\d+)-(\d+)", location)
        assert found, location
        start, end = int(found[1]), int(found[2])
        total = end - start + 1
        assert total > 100  # the whole method, not a piece of it
        visible = unit.locator(":scope > .code .line:visible")
        shown = visible.count()
        assert 1 <= shown <= 5  # a compact card: its first line, then the matched piece
        assert "def read_token(" in visible.first.inner_text()
        assert visible.first.locator(".linenos").inner_text().strip() == str(start)
        more = unit.locator(":scope > .head button.more")
        expect(more).to_have_text(f"+{total - shown} lines")
        more.click()
        expect(unit.locator(":scope > .code .line:visible")).to_have_count(total)
        expect(more).to_have_text("less")


def test_five_results_fit_a_laptop_and_a_file_marks_only_the_matched_lines(
    page_server: Server,
) -> None:
    """Issue 31: a result was 450 px tall, and a file's whole 181-line range was yellow."""
    from playwright.sync_api import expect

    with searched(page_server, "read the next token, honouring quotes and escapes",
                  "hybrid") as page:
        page.set_viewport_size({"width": 1280, "height": 900})
        assert units_in_view(page) >= 5
        head = page.locator(".hit .head", has=page.locator(".symbol", has_text="read_token"))
        head.first.locator(".location a").click()
        marked = page.locator("#file-code .line.selected")
        expect(marked.first).to_be_in_viewport()  # scrolled to the matched lines
        unit = page.locator("#file-code .line.in-unit")
        assert unit.count() > 100  # read_token, whole
        assert 1 <= marked.count() < unit.count()
        assert page.locator("#file-code .text span").count() > 1000  # highlighted


@pytest.mark.parametrize("sent_before_the_listing", [True, False])
def test_a_query_typed_before_the_collections_are_listed_is_searched(
    page_server: Server, sent_before_the_listing: bool
) -> None:
    """A slow server: a query typed, and perhaps sent, before the collection picker is
    filled is searched. The listing's arrival fills the picker and leaves the query box as
    typed (the map view's test flaked when a busy server answered between fill and click)."""
    from playwright.sync_api import Route, expect, sync_playwright

    query = "split a string using shell-like syntax"
    held: list[Route] = []
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page()
            # The listing waits until the test releases it.
            page.route("**/v1/collections", lambda route: held.append(route))
            page.goto(page_server.url + "/")
            page.fill("#query", query)
            if sent_before_the_listing:
                page.click("button[type=submit]")
                expect(page.locator("#collection option")).to_have_count(0)
            assert len(held) == 1
            held[0].continue_()
            if not sent_before_the_listing:
                expect(page.locator("#collection option")).to_have_count(1)
                expect(page.locator("#query")).to_have_value(query)
                page.click("button[type=submit]")
            expect(page.locator(".hit").first).to_be_visible()
            assert "collection=stdlib" in page.url
        finally:
            browser.close()
