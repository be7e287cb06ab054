"""The search page's Map view in a real browser: Debian's chromium driven by Playwright."""

from __future__ import annotations

import shutil
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.ingest.indexer import IndexOptions, index_folder
from tests.api.server import serving_in_thread
from tests.api.test_search_page_browser import CHROMIUM, CHROMIUM_ARGS
from tests.fakes import FakeEncoder
from tests.plot.corpus import indexed_store

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# Where the last run leaves its screenshot for a person to look at.
SHOWCASE = Path("/tmp/map_view.png")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


@pytest.fixture
def base_url(tmp_path: Path, fake_encoder: FakeEncoder) -> Iterator[str]:
    """The generated repository plus the stdlib's json package and two modules (fake encoder)."""
    store = indexed_store(tmp_path)
    repo = tmp_path / "proj"
    shutil.copytree(STDLIB / "json", repo / "json", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("shlex.py", "textwrap.py"):
        shutil.copy(STDLIB / name, repo / name)
    index_folder(store, repo, IndexOptions(name="proj"))
    settings = ServerSettings(store=store.root, preload_model=False)
    with serving_in_thread(create_app(settings)) as url:
        yield url


def test_the_map_view_draws_the_units_and_rings_the_results(
    base_url: str, tmp_path: Path
) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(base_url + "/")
            expect(page.locator("#collection option")).to_have_count(1)
            page.fill("#query", "split a string into shell tokens")
            page.click("button[type=submit]")
            expect(page.locator(".hit").first).to_be_visible()

            page.click("#views button[data-view=map]")
            canvas = page.locator("#map-canvas")
            expect(canvas).to_be_visible()
            expect(page.locator("#results")).to_be_hidden()
            units = page.evaluate("fetch('/v1/collections').then(r => r.json())")[0]["units"]
            expect(canvas).to_have_attribute("data-points", str(units))
            # Every unit fits in the default sample, so all ten results are ringed.
            expect(canvas).to_have_attribute("data-highlighted", "10")
            expect(page.locator("#map-info")).to_contain_text("10 of 10 results on the map")
            assert page.locator("#map-legend li").count() >= 3  # folders: json/, parsing/, ...
            inked = page.evaluate("""() => {
                const c = document.getElementById("map-canvas");
                const pixels = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
                let n = 0;
                for (let i = 3; i < pixels.length; i += 4) if (pixels[i] > 0) n++;
                return n;
            }""")
            assert inked > 2000, inked  # hundreds of dots, not an empty canvas

            # Hovering over the best result's ring names its location.
            first = page.evaluate("""() => {
                const i = mapState.data.points.findIndex((p) => p.id === mapState.results[0].id);
                return mapState.screen[i];
            }""")
            box = canvas.bounding_box()
            assert box is not None
            page.mouse.move(box["x"] + first[0], box["y"] + first[1])
            tip = page.locator("#map-tip")
            expect(tip).to_be_visible()
            best = page.locator(".hit .location").first.inner_text().split(". ", 1)[1]
            expect(tip).to_contain_text(best)

            shot = tmp_path / "map-view.png"
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert shot.stat().st_size > 20_000
    shutil.copy(shot, SHOWCASE)
