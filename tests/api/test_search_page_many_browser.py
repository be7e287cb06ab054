"""The search page over several collections, in Debian's chromium against a real uvicorn server
(fake encoder): "All collections", a hit's file with its range, copying a location, `/`, what
to try when nothing matched, the collection's own examples, the favicon and a phone's width."""

from __future__ import annotations

import re
import shutil
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode, urlsplit

import pytest

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.api.browser import CHROMIUM, params_of, units_in_view
from tests.api.server import serving_in_thread
from tests.fakes import FAKE_SPEC, install_fake_encoder

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# A folder deep enough that its paths cannot fit a phone's width.
DEEP = "src/very/long/folder/names/that/cannot/fit/a/phone"
README = "# Marsupials\n\nThe quokka lives on Rottnest Island.\n"

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """(server URL, folder of the repositories): "stdlib" (three flat modules and a README)
    and "deep" (shlex.py far down)."""
    install_fake_encoder()
    base = tmp_path_factory.mktemp("many")
    flat = base / "stdlib"
    flat.mkdir()
    for name in ("shlex.py", "fnmatch.py", "textwrap.py"):
        shutil.copy(STDLIB / name, flat / name)
    (flat / "README.md").write_text(README)
    deep = base / "deep" / DEEP
    deep.mkdir(parents=True)
    shutil.copy(STDLIB / "shlex.py", deep / "shlex.py")
    store = Store(base / "store")
    index_folder(store, flat, IndexOptions(name="stdlib", encoder=FAKE_SPEC))
    index_folder(store, base / "deep", IndexOptions(name="deep", encoder=FAKE_SPEC))
    settings = ServerSettings(store=store.root, preload_model=False)
    with serving_in_thread(create_app(settings)) as url:
        yield url, base




def search(page: Page, url: str, **params: str) -> None:
    """Open the page on a search's URL and wait for its results."""
    from playwright.sync_api import expect

    page.goto(f"{url}/?{urlencode(params)}")
    expect(page.locator(".hit").first).to_be_visible()


def test_all_collections_is_the_default_and_each_hit_names_its_collection(
    site: tuple[str, Path], page: Page
) -> None:
    from playwright.sync_api import expect

    url, _ = site
    page.goto(url + "/")
    expect(page.locator("#collection option")).to_have_count(3)
    expect(page.locator("#collection")).to_have_value("*")
    page.fill("#query", "Split the string s using shell-like syntax")
    page.click("button[type=submit]")
    expect(page.locator(".hit").first).to_be_visible()
    assert params_of(page)["collection"] == ["*"]
    named = page.locator(".hit .collection").all_inner_texts()
    assert len(named) == page.locator(".hit").count() == 10
    assert set(named) == {"stdlib", "deep"}  # one ranking over both
    # shlex.py's split is what the query describes (its docstring's words); the test encoder
    # ranks it among the first.
    assert "shlex.py:" in " ".join(page.locator(".hit .location").all_inner_texts()[:3])

    page.reload()  # the URL holds the search over all: it runs again
    expect(page.locator(".hit .collection")).to_have_count(10)
    expect(page.locator("#collection")).to_have_value("*")

    page.select_option("#collection", "deep")
    page.click("button[type=submit]")
    expect(page.locator(".hit .location").first).to_contain_text(DEEP)
    expect(page.locator(".hit .collection")).to_have_count(0)  # one collection: said once above
    page.go_back()
    expect(page.locator(".hit .collection")).to_have_count(10)
    expect(page.locator("#collection")).to_have_value("*")


def test_a_path_opens_its_file_with_the_range_highlighted_and_back_returns(
    site: tuple[str, Path], page: Page
) -> None:
    from playwright.sync_api import expect

    url, base = site
    search(page, url, q="read_token", collection="*", mode="lexical")
    # read_token, shown under its class shlex.
    hit = (page.locator(".hit .head").filter(has=page.locator(".collection", has_text="deep"))
           .filter(has=page.locator(".symbol", has_text="read_token")).first)
    hit.scroll_into_view_if_needed()
    link = hit.locator(".location a")
    location = link.inner_text()
    found = re.fullmatch(rf"{DEEP}/shlex\.py:(\d+)-(\d+)", location)
    assert found, location
    start, end = int(found[1]), int(found[2])
    link.click()

    view = page.locator("#file-view")
    expect(view).to_be_visible()
    expect(page.locator("#results")).to_be_hidden()
    assert params_of(page)["view"] == [location]
    assert params_of(page)["view_collection"] == ["deep"]
    expect(page.locator("#file-title")).to_have_text(f"deep · {location}")
    # The definition edged; the matched lines, named in the hash, marked.
    unit = page.locator("#file-code .line.in-unit")
    expect(unit).to_have_count(end - start + 1)
    expect(unit.first.locator(".linenos")).to_have_text(str(start))
    assert "def read_token(" in unit.first.inner_text()
    marked = re.fullmatch(r"L(\d+)-L(\d+)", urlsplit(page.url).fragment)
    assert marked, page.url
    first, last = int(marked[1]), int(marked[2])
    assert start <= first <= last <= end
    selected = page.locator("#file-code .line.selected")
    expect(selected).to_have_count(last - first + 1)
    expect(selected.first).to_be_in_viewport()  # scrolled to the hit, far down the file
    # The whole file, every line where the file has it.
    lines = (base / "deep" / DEEP / "shlex.py").read_text().split("\n")[:-1]
    shown = page.evaluate("""() => [...document.querySelectorAll("#file-code .line")]
        .map((line) => line.childNodes[1].textContent)""")  # each line's text, less its number
    assert shown == lines

    page.go_back()  # the results, as they were
    expect(view).to_be_hidden()
    expect(hit).to_be_visible()
    assert "view" not in params_of(page)

    page.go_forward()  # and the file again; a shared link of it opens it too
    expect(selected).to_have_count(last - first + 1)
    shared = page.url
    page.goto("about:blank")
    page.goto(shared)
    expect(selected).to_have_count(last - first + 1)
    expect(page.locator(".hit").first).to_be_hidden()  # under the file...
    page.click("#file-close")
    expect(page.locator(".hit").first).to_be_visible()  # ...the search it came from
    assert "view" not in params_of(page) and params_of(page)["q"] == ["read_token"]


def test_a_file_of_one_collection_and_an_unknown_one(site: tuple[str, Path], page: Page) -> None:
    from playwright.sync_api import expect

    url, _ = site
    page.goto(f"{url}/?collection=stdlib&view=README.md:3-3#L3")
    expect(page.locator("#file-code .line.selected")).to_have_text("3The quokka lives on "
                                                                    "Rottnest Island.")
    expect(page.locator("#file-code .line")).to_have_count(3)
    page.goto(f"{url}/?collection=stdlib&view=nowhere.py:1-2")
    expect(page.locator("#file-code")).to_contain_text(
        "Cannot show nowhere.py: no file 'nowhere.py' in collection 'stdlib'")


def test_copy_puts_the_location_on_the_clipboard(site: tuple[str, Path], browser: Browser) -> None:
    from playwright.sync_api import expect

    url, base = site
    context = browser.new_context()
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    try:
        page = context.new_page()
        search(page, url, q="read_token", collection="stdlib", mode="lexical")
        head = page.locator(".hit").first.locator(":scope > .head")
        found = re.fullmatch(r"1\. (\S+):(\d+)-\d+", head.locator(".location").inner_text())
        assert found
        button = head.locator("button.copy")
        button.click()
        expect(button).to_have_text("copied")
        # The file on disk at the definition's first line: what an editor opens.
        expected = f"{(base / 'stdlib').resolve() / found[1]}:{found[2]}"
        assert page.evaluate("navigator.clipboard.readText()") == expected
    finally:
        context.close()


def test_slash_focuses_the_query_unless_one_is_typing(site: tuple[str, Path], page: Page) -> None:
    from playwright.sync_api import expect

    url, _ = site
    search(page, url, q="quote", collection="stdlib", mode="lexical")
    page.locator(".hit .meta").first.click()  # somewhere that is not a text box
    page.keyboard.press("/")
    expect(page.locator("#query")).to_be_focused()
    expect(page.locator("#query")).to_have_value("quote")  # "/" only moved the focus
    page.keyboard.type("join")  # the old query was selected: typing replaces it
    expect(page.locator("#query")).to_have_value("join")
    page.click("#include")
    page.keyboard.type("src/")
    expect(page.locator("#include")).to_have_value("src/")  # typed, not a jump
    expect(page.locator("#include")).to_be_focused()


def test_nothing_matched_offers_hybrid_mode_and_no_filters(
    site: tuple[str, Path], page: Page
) -> None:
    from playwright.sync_api import expect

    url, _ = site
    page.goto(f"{url}/?" + urlencode({"q": "quokka", "collection": "stdlib", "mode": "lexical",
                                      "language": "python"}))
    box = page.locator("#no-results")
    expect(box).to_be_visible()
    expect(page.locator(".hit")).to_have_count(0)
    expect(box.locator("button")).to_have_text(["in hybrid mode", "without filters",
                                                "in all collections"])
    box.locator("button", has_text="without filters").click()
    expect(page.locator(".hit .location").first).to_contain_text("README.md")
    assert params_of(page) == {"q": ["quokka"], "collection": ["stdlib"], "mode": ["lexical"]}
    expect(box).to_be_hidden()
    expect(page.locator("#language")).to_have_value("")

    page.goto(f"{url}/?" + urlencode({"q": "zzqxv", "collection": "*", "mode": "lexical"}))
    expect(box.locator("button")).to_have_text(["in hybrid mode"])
    box.locator("button").click()
    expect(page.locator(".hit").first).to_be_visible()  # the dense side always answers
    assert "mode" not in params_of(page)
    page.go_back()
    expect(box).to_be_visible()


def api_examples(page: Page, name: str) -> list[dict[str, Any]]:
    examples: list[dict[str, Any]] = page.evaluate(
        f"fetch('/v1/collections/{name}/examples').then(r => r.json())")["examples"]
    return examples


def test_examples_are_the_collections_own(site: tuple[str, Path], page: Page) -> None:
    from playwright.sync_api import expect

    url, _ = site
    page.goto(url + "/")
    expect(page.locator("#examples-intro")).to_have_text("From these collections, try:")
    page.select_option("#collection", "stdlib")
    expect(page.locator("#examples-intro")).to_have_text("From this collection, try:")
    examples = api_examples(page, "stdlib")
    assert any(e["kind"] == "description" for e in examples)
    assert any(e["kind"] == "symbol" for e in examples)
    buttons = page.locator("#examples button")
    expect(buttons).to_have_text([e["query"] for e in examples])
    assert "parse the config file and merge defaults" not in buttons.all_inner_texts()
    chosen = next(e for e in examples if e["kind"] == "description")
    buttons.filter(has_text=chosen["query"]).click()
    expect(page.locator(".hit").first).to_be_visible()
    assert params_of(page)["q"] == [chosen["query"]]
    assert chosen["path"] in page.locator(".hit .location").first.inner_text()


def test_the_favicon_is_inline_and_nothing_the_page_asks_for_fails(
    site: tuple[str, Path], page: Page
) -> None:
    from playwright.sync_api import expect

    url, _ = site
    failed: list[str] = []
    asked: list[str] = []
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("request", lambda r: asked.append(r.url))
    page.goto(url + "/")
    expect(page.locator("#examples button").first).to_be_visible()
    href = page.locator("link[rel=icon]").get_attribute("href")
    assert href is not None and href.startswith("data:image/svg+xml,")
    size = page.evaluate("""(src) => new Promise((done) => {
        const image = new Image();
        image.onload = () => done([image.naturalWidth, image.naturalHeight]);
        image.onerror = () => done(null);
        image.src = src;
    })""", href)
    assert size is not None and size[0] > 0  # a picture the browser can draw
    assert failed == []
    assert not [a for a in asked if a.endswith("/favicon.ico")]


def test_a_phone_shows_results_under_a_short_form_and_every_symbol_whole(
    site: tuple[str, Path], browser: Browser, tmp_path: Path
) -> None:
    """Issue 31: the form took 340 of 844 px and headers cut the symbol to "T…"."""
    url, _ = site
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        # A query of shlex's alone, whose hits both collections hold: deep paths among them.
        query = "shlex lexer: read, push and pop tokens and source files"
        search(page, url, q=query, collection="*")
        form = page.evaluate("document.querySelector('header').getBoundingClientRect().height")
        assert form < 140, form
        first = page.locator(".hit").first.bounding_box()
        assert first is not None and first["y"] < 250, first  # a result in the first screen
        rows = page.evaluate("""() => [...document.querySelectorAll(".hit .head")].map((h) => {
            const where = h.querySelector(".location");
            const symbol = h.querySelector(".symbol");
            const shown = where.getBoundingClientRect();
            const text = where.querySelector("a").getBoundingClientRect();
            return {symbol: symbol && symbol.textContent,
                    symbol_cut: Boolean(symbol) && symbol.scrollWidth > symbol.clientWidth,
                    height: h.getBoundingClientRect().height,
                    right: h.getBoundingClientRect().right,
                    cut: where.scrollWidth > where.clientWidth,
                    // A cut path loses its start: the file name and lines stay in view.
                    end_shown: text.right <= shown.right + 1};
        })""")
        assert sum(bool(row["symbol"]) for row in rows) >= 5, rows
        for row in rows:
            assert not row["symbol_cut"], row
            assert row["height"] < 100 and row["right"] <= 390, row
        cut = [row for row in rows if row["cut"]]
        assert len(cut) >= 3 and all(row["end_shown"] for row in cut), rows
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scroll
        page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
    finally:
        context.close()


def test_five_results_fit_a_laptop_screen_each_a_few_lines_that_unfold(
    site: tuple[str, Path], browser: Browser
) -> None:
    from playwright.sync_api import expect

    url, _ = site
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        search(page, url, q="quote", collection="stdlib", mode="lexical")
        assert units_in_view(page) >= 5
        for unit in page.locator(".unit").all():
            assert 1 <= unit.locator(":scope > .code .line:visible").count() <= 5
        card = page.locator(".hit").first
        more = card.locator(":scope > .head button.more")
        hidden = int(re.fullmatch(r"\+(\d+) lines", more.inner_text())[1])  # type: ignore[index]
        shown = card.locator(":scope > .code .line:visible").count()
        more.click()
        expect(card.locator(":scope > .code .line:visible")).to_have_count(shown + hidden)
        expect(more).to_have_text("less")
    finally:
        context.close()


def test_a_method_is_shown_once_under_its_class(site: tuple[str, Path], page: Page) -> None:
    url, _ = site
    search(page, url, q="read_token", collection="stdlib", mode="lexical")
    symbols = page.locator(".hit .head .symbol").all_inner_texts()
    assert symbols.count("shlex.read_token") == 1, symbols
    card = page.locator(".hit", has=page.locator(".member .symbol", has_text="shlex.read_token"))
    assert card.locator(":scope > .head .symbol").inner_text() == "shlex"
    assert symbols.count("shlex") == 1  # the class once, as the header of its members


def test_facets_count_the_results_and_a_click_narrows_the_search(
    site: tuple[str, Path], page: Page
) -> None:
    from playwright.sync_api import expect

    url, _ = site
    search(page, url, q="split the string using shell-like syntax", collection="*")

    def counts(title: str) -> dict[str, int]:
        group = page.locator(".facet-group", has=page.locator("h2", has_text=title))
        names = group.locator(".facet-name").all_inner_texts()
        return dict(zip(names, map(int, group.locator(".count").all_inner_texts()), strict=True))

    collections = counts("Collection")
    assert set(collections) == {"stdlib", "deep"} and sum(collections.values()) == 10
    assert sum(counts("Language").values()) == 10
    folders = counts("Folder")
    assert folders == {"src/": collections["deep"]}  # stdlib's files lie at the top
    page.locator(".facet", has_text="src/").click()
    expect(page.locator("#facets .facet[aria-pressed=true]")).to_have_text("src/10")
    assert params_of(page)["include"] == ["src/**"]
    expect(page.locator("#include")).to_have_value("src/**")
    assert all(DEEP in loc for loc in page.locator(".hit .location").all_inner_texts())
    page.locator(".facet[aria-pressed=true]").click()  # again: the filter goes
    expect(page.locator(".hit .collection", has_text="stdlib").first).to_be_visible()
    assert "include" not in params_of(page)
    page.locator(".facet", has_text="stdlib").click()
    expect(page.locator("#collection")).to_have_value("stdlib")
    expect(page.locator(".facet-group h2", has_text="Collection")).to_have_count(0)


def test_keys_move_open_and_close_with_a_visible_ring_and_few_tabs(
    site: tuple[str, Path], page: Page
) -> None:
    from playwright.sync_api import expect

    url, _ = site
    search(page, url, q="quote", collection="stdlib")  # the options folded: all at defaults
    page.locator("#query").focus()
    tabs = 0
    first_link = page.locator(".hit").first.locator(":scope > .head .location a")
    while not first_link.evaluate("(a) => a === document.activeElement") and tabs < 20:
        page.keyboard.press("Tab")
        tabs += 1
    assert tabs <= 6, tabs  # was 11 (issue 31)

    page.keyboard.press("Escape")  # out of any box, so j/k are keys, not text
    page.locator("#status").click()
    cards = page.locator("#results > .hit")
    page.keyboard.press("j")
    expect(cards.nth(0)).to_be_focused()
    page.keyboard.press("j")
    expect(cards.nth(1)).to_be_focused()
    ring = cards.nth(1).evaluate(
        "(c) => [getComputedStyle(c).outlineStyle, parseFloat(getComputedStyle(c).outlineWidth)]")
    assert ring[0] == "solid" and ring[1] >= 2, ring
    page.keyboard.press("k")
    expect(cards.nth(0)).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#file-view")).to_be_visible()
    assert "view" in params_of(page)
    page.keyboard.press("Escape")
    expect(page.locator("#file-view")).to_be_hidden()
    expect(cards.nth(0)).to_be_visible()
    assert "view" not in params_of(page)


def test_an_unreachable_server_offers_a_retry_and_a_bad_glob_is_marked_on_its_field(
    site: tuple[str, Path], page: Page
) -> None:
    from playwright.sync_api import expect

    url, _ = site
    page.route("**/v1/collections/*/search", lambda route: route.abort())
    page.goto(f"{url}/?" + urlencode({"q": "quote", "collection": "stdlib", "mode": "lexical"}))
    problem = page.locator("#problem")
    expect(problem).to_be_visible()
    expect(problem).to_contain_text("Cannot reach the embedstore server")
    assert "Failed to fetch" not in page.locator("body").inner_text()
    page.unroute("**/v1/collections/*/search")
    page.click("#retry")
    expect(page.locator(".hit").first).to_be_visible()
    expect(problem).to_be_hidden()

    page.goto(f"{url}/?" + urlencode({"q": "quote", "collection": "stdlib", "include": "src/[ab"}))
    include = page.locator("#include")
    expect(include).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#include-error")).to_contain_text("invalid glob 'src/[ab'")
    expect(include).to_be_visible()
    expect(problem).to_be_hidden()  # on the field, not in a general box
    expect(page.locator("#exclude")).not_to_have_attribute("aria-invalid", "true")


def test_the_file_view_is_highlighted_and_its_line_numbers_link(
    site: tuple[str, Path], page: Page
) -> None:
    from playwright.sync_api import expect

    url, _ = site
    page.goto(f"{url}/?collection=stdlib&view=shlex.py#L40-L52")
    selected = page.locator("#file-code .line.selected")
    expect(selected).to_have_count(13)
    expect(selected.first.locator(".linenos")).to_have_text("40")
    assert page.locator("#file-code .text span.k").count() > 50  # keywords, coloured
    page.locator("#L5 a.linenos").click()
    expect(selected).to_have_count(1)
    assert urlsplit(page.url).fragment == "L5"
    page.locator("#L8 a.linenos").click(modifiers=["Shift"])
    expect(selected).to_have_count(4)
    assert urlsplit(page.url).fragment == "L5-L8"
    page.keyboard.press("Escape")
    expect(page.locator("#file-view")).to_be_hidden()
