"""The search page in a real browser: Debian's chromium driven by Playwright."""

from __future__ import annotations

import shutil
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from embedstore.indexing import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.api.server import Server, running_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
STDLIB = Path(sysconfig.get_paths()["stdlib"])
# The probe's flags: no sandbox as root, and nothing that reaches for the network.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

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
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.goto(page_server.url + "/")
        expect(page.locator("#collection option")).to_have_count(1)
        page.fill("#query", "split a string using shell-like syntax")
        page.check("input[name=mode][value=hybrid]")
        page.click("button[type=submit]")
        first = page.locator(".hit").first
        expect(first).to_be_visible()
        locations = page.locator(".hit .location").all_inner_texts()
        codes = page.locator(".hit .code").all_inner_texts()
        page.screenshot(path=str(tmp_path / "search-page.png"), full_page=True)
        browser.close()
    hits = [(loc, code) for loc, code in zip(locations[:3], codes[:3], strict=True)
            if "shlex.py:" in loc and "def split(" in code]
    assert hits, locations
    assert (tmp_path / "search-page.png").stat().st_size > 10_000
