"""The search page's filters, k, URL state, history, term marks, empty state, examples and
remembered collection, in Debian's chromium against `embedstore serve` with the real default
model."""

from __future__ import annotations

import re
import shutil
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlencode

import pytest

from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.api.browser import CHROMIUM, params_of
from tests.api.server import Server, running_server

if TYPE_CHECKING:
    from playwright.sync_api import Page

STDLIB = Path(sysconfig.get_paths()["stdlib"])
README = """# Shell-like lexing

The lexer splits a string into tokens the way a Unix shell would, honouring quotes
and escapes; see shlex.split.
"""

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("state")
    repo = base / "stdlib"
    (repo / "docs").mkdir(parents=True)
    for name in ("shlex.py", "fnmatch.py"):
        shutil.copy(STDLIB / name, repo / name)
    (repo / "docs" / "lexing.md").write_text(README)
    notes = base / "notes"
    notes.mkdir()
    (notes / "notes.md").write_text("# Notes\n\nNothing about shells here.\n")
    store = Store(base / "store")
    index_folder(store, repo, IndexOptions(name="stdlib"))
    index_folder(store, notes, IndexOptions(name="notes"))
    with running_server(base / "store") as srv:
        yield srv




def paths_of(page: Page) -> list[str]:
    """Each result's path: a card's ("1. path:lines") and a member's ("path:lines")."""
    return [re.sub(r"^\d+\. ", "", loc).rsplit(":", 1)[0]
            for loc in page.locator(".hit .location").all_inner_texts()]


def test_a_shared_url_runs_its_search_with_its_filters(server: Server, page: Page) -> None:
    from playwright.sync_api import expect

    shared = {"q": "read_token", "collection": "stdlib", "mode": "lexical", "k": "3",
              "include": "*.py", "exclude": "fnmatch.py", "language": "python"}
    page.goto(f"{server.url}/?{urlencode(shared)}")
    expect(page.locator(".hit").first).to_be_visible()
    assert 1 <= page.locator(".hit").count() <= 3
    assert set(paths_of(page)) == {"shlex.py"}
    # The form shows the search it ran.
    expect(page.locator("#query")).to_have_value("read_token")
    expect(page.locator("#collection")).to_have_value("stdlib")
    expect(page.locator("input[name=mode][value=lexical]")).to_be_checked()
    expect(page.locator("#k")).to_have_value("3")
    expect(page.locator("#include")).to_have_value("*.py")
    expect(page.locator("#exclude")).to_have_value("fnmatch.py")
    expect(page.locator("#language")).to_have_value("python")
    expect(page.locator("#empty")).to_be_hidden()
    # The query's terms are marked in the code, not in the line numbers.
    marks = page.locator(".hit").first.locator("mark.term")
    assert "read_token" in [m.lower() for m in marks.all_inner_texts()]
    assert page.locator(".linenos mark").count() == 0


def test_filters_go_into_the_url_and_back_restores_the_previous_search(
    server: Server, page: Page,
) -> None:
    from playwright.sync_api import expect

    page.goto(server.url + "/")
    expect(page.locator("#empty")).to_be_visible()  # no query yet: examples to click
    page.select_option("#collection", "stdlib")
    page.fill("#query", "split a string into tokens like a shell")
    page.click("#options-toggle")  # mode, k and filters are folded at first
    page.fill("#language", "markdown")
    page.click("button[type=submit]")
    expect(page.locator(".hit").first).to_be_visible()
    assert set(paths_of(page)) == {"docs/lexing.md"}
    assert params_of(page) == {"q": ["split a string into tokens like a shell"],
                               "collection": ["stdlib"], "language": ["markdown"]}

    page.fill("#language", "python")
    page.fill("#exclude", "shlex.py")
    page.select_option("#k", "5")
    page.check("input[name=mode][value=dense]")
    page.click("button[type=submit]")
    expect(page.locator("#results")).not_to_contain_text("lexing.md")
    expect(page.locator(".hit")).to_have_count(5)
    assert set(paths_of(page)) == {"fnmatch.py"}
    assert params_of(page)["exclude"] == ["shlex.py"] and params_of(page)["k"] == ["5"]

    page.go_back()  # the markdown search, its form and its results
    expect(page.locator("#language")).to_have_value("markdown")
    expect(page.locator("#exclude")).to_have_value("")
    expect(page.locator("input[name=mode][value=hybrid]")).to_be_checked()
    expect(page.locator("#k")).to_have_value("10")
    expect(page.locator(".hit .location").first).to_contain_text("docs/lexing.md")
    assert set(paths_of(page)) == {"docs/lexing.md"}

    page.go_back()  # the page before any search
    expect(page.locator("#empty")).to_be_visible()
    expect(page.locator("#query")).to_have_value("")
    expect(page.locator(".hit")).to_have_count(0)

    page.go_forward()
    expect(page.locator(".hit .location").first).to_contain_text("docs/lexing.md")


def test_an_example_query_searches_and_the_collection_is_remembered(
    server: Server, page: Page, tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    page.goto(server.url + "/")
    # Two collections: "All collections" first, and chosen until another is.
    expect(page.locator("#collection option")).to_have_count(3)
    expect(page.locator("#collection")).to_have_value("*")
    page.select_option("#collection", "notes")
    page.reload()
    expect(page.locator("#collection option")).to_have_count(3)
    expect(page.locator("#collection")).to_have_value("notes")  # the last choice, kept

    page.select_option("#collection", "stdlib")
    # The examples are the collection's own: shlex's and fnmatch's documentation and names.
    example = page.locator("#examples button", has_text="shell-like syntax").first
    example.click()
    expect(page.locator(".hit").first).to_be_visible()
    assert params_of(page)["q"] == [example.inner_text()]
    assert "shlex.py" in paths_of(page)[:3]
    page.screenshot(path=str(tmp_path / "search.png"), full_page=True)
    assert (tmp_path / "search.png").stat().st_size > 10_000
