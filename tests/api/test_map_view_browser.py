"""The search page's Map view in a real browser: Debian's chromium driven by Playwright."""

from __future__ import annotations

import re
import shutil
import sysconfig
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.api.browser import CHROMIUM, WAIT_MS, launch
from tests.api.server import serving_in_thread
from tests.fakes import FAKE_SPEC, FakeEncoder
from tests.plot.corpus import indexed_store

if TYPE_CHECKING:
    from playwright.sync_api import Page

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
        browser = launch(pw)
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


def point_of(page: Page, predicate: str) -> dict[str, Any]:
    """The first point (and where it is on the canvas) for which ``predicate`` holds, a JS
    expression of `p` (the point), `hit` (its rank among the results, -1 when none) and `i`;
    a point alone at its place, so a click there finds it and no other."""
    found: dict[str, Any] = page.evaluate(f"""() => {{
        const screen = mapState.screen;
        const alone = (i) => screen.every(([x, y], j) => j === i ||
            (x - screen[i][0]) ** 2 + (y - screen[i][1]) ** 2 > 1);
        const i = mapState.data.points.findIndex((p, i) => {{
            const hit = mapState.results.findIndex((r) => r.id === p.id);
            return alone(i) && ({predicate});
        }});
        return {{...mapState.data.points[i], screen: screen[i]}};
    }}""")
    return found


def click_point(page: Page, point: dict[str, Any]) -> None:
    box = page.locator("#map-canvas").bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + point["screen"][0], box["y"] + point["screen"][1])


def test_a_click_on_a_point_shows_its_result_or_else_its_file(base_url: str) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(base_url + "/")
            page.fill("#query", "split a string into shell tokens")
            page.click("button[type=submit]")
            # Ten results: cards, and members shown under their class.
            expect(page.locator("#results [data-rank]")).to_have_count(10)
            page.click("#views button[data-view=map]")
            expect(page.locator("#map-canvas")).to_have_attribute("data-highlighted", "10")

            # The 8th result: far down the list, out of view until the map points at it.
            eighth = page.locator('#results [data-rank="7"]')
            click_point(page, point_of(page, "hit === 7"))
            expect(eighth).to_be_in_viewport()
            # Its card flashes (its class's card, if it is shown under one).
            card = eighth.locator("xpath=ancestor-or-self::article[1]")
            expect(card).to_have_class(re.compile(r"\bflash\b"))
            expect(page.locator("#map-view")).to_be_hidden()
            expect(page.locator("#views button.active")).to_have_text("Results")

            page.click("#views button[data-view=map]")
            other = point_of(page, "hit < 0")
            click_point(page, other)
            selected = page.locator("#file-code .line.selected")
            expect(selected).to_have_count(other["end_line"] - other["start_line"] + 1)
            expect(page.locator("#file-title")).to_have_text(
                f"proj · {other['path']}:{other['start_line']}-{other['end_line']}")
            expect(selected.first).to_be_in_viewport()
            page.go_back()  # back to the map it was opened from
            expect(page.locator("#map-canvas")).to_be_visible()
            expect(page.locator("#file-view")).to_be_hidden()
        finally:
            browser.close()


def test_the_map_opened_before_the_collections_are_listed_waits_for_them(
    base_url: str,
) -> None:
    from playwright.sync_api import Route, expect, sync_playwright

    held: list[Route] = []
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            # The listing held back until the Map is open: the order a busy machine may give.
            page.route(lambda url: url.endswith("/v1/collections"),
                       lambda route: held.append(route))
            page.goto(base_url + "/")
            page.click("#views button[data-view=map]")
            # The page's own request ends this wait; WAIT_MS only keeps a page that never
            # asks from hanging the run.
            deadline = time.monotonic() + WAIT_MS / 1000
            while not held and time.monotonic() < deadline:
                page.wait_for_timeout(20)
            assert held, "the page never asked for the collections"
            held[0].continue_()
            expect(page.locator("#map-canvas")).to_have_attribute("data-points", re.compile(r"\d"))
        finally:
            browser.close()


def test_a_map_of_one_folder_colours_by_file_with_the_legend_in_view(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    from playwright.sync_api import expect, sync_playwright

    flat = tmp_path / "flat"
    flat.mkdir()
    for name in ("shlex.py", "fnmatch.py", "textwrap.py"):
        shutil.copy(STDLIB / name, flat / name)
    store = Store(tmp_path / "store")
    index_folder(store, flat, IndexOptions(name="flat", encoder=FAKE_SPEC))
    settings = ServerSettings(store=store.root, preload_model=False)
    with serving_in_thread(create_app(settings)) as url, sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(url + "/")
            page.click("#views button[data-view=map]")
            expect(page.locator("#map-canvas")).to_have_attribute("data-points", re.compile(r"\d"))
            expect(page.locator("#map-color")).to_have_value("file")
            legend = page.locator("#map-legend li")
            expect(legend).to_have_count(3)
            assert sorted(t.split(" (")[0] for t in legend.all_inner_texts()) == [
                "fnmatch.py", "shlex.py", "textwrap.py"]
            expect(page.locator("#map-legend")).to_be_in_viewport(ratio=1)
            # No point lies under the legend: the map keeps clear of it.
            box = page.locator("#map-legend").bounding_box()
            canvas = page.locator("#map-canvas").bounding_box()
            assert box is not None and canvas is not None
            under = page.evaluate("""([left, bottom]) => mapState.screen.filter(
                ([x, y]) => x >= left && y <= bottom).length""",
                [box["x"] - canvas["x"], box["y"] + box["height"] - canvas["y"]])
            assert under == 0
            page.select_option("#map-color", "folder")  # a choice made stays made
            expect(legend).to_have_text([re.compile(r"^\./ \(\d+\)$")])
        finally:
            browser.close()
