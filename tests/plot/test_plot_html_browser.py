"""The HTML map in a real browser, offline: hover names a unit, a click copies its location."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from tests.api.browser import CHROMIUM, launch
from tests.fakes import FakeEncoder
from tests.plot.corpus import indexed_store

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


def test_hover_shows_the_location_and_a_click_copies_it(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    from playwright.sync_api import expect, sync_playwright

    store = indexed_store(tmp_path)
    out = tmp_path / "map.html"
    result = CliRunner().invoke(app, ["plot", "proj", "--store", str(store.root), "--out",
                                      str(out), "--query", "disk cache"])
    assert result.exit_code == 0, result.stderr
    with sync_playwright() as pw:
        # No network at all: the page must draw from the file alone.
        browser = launch(pw)
        try:
            context = browser.new_context(offline=True)
            context.grant_permissions(["clipboard-read", "clipboard-write"])
            page = context.new_page()
            page.goto(out.as_uri())
            point = page.locator(".scatterlayer .trace").first.locator(".point").first
            expect(point).to_be_visible()
            box = point.bounding_box()
            assert box is not None
            x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
            page.mouse.move(x, y)
            hover = page.locator(".hoverlayer .hovertext")
            expect(hover).to_contain_text(re.compile(r"\.(py|md):\d+-\d+"))
            location = re.search(r"[\w/.]+\.(?:py|md):\d+-\d+", hover.text_content() or "")
            assert location
            page.mouse.click(x, y)
            expect(page.get_by_text(f"copied {location[0]}")).to_be_visible()
            assert page.evaluate("navigator.clipboard.readText()") == location[0]
            page.screenshot(path=str(tmp_path / "html-map.png"))
        finally:
            browser.close()
