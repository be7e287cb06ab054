"""Document hits on the search page, in Debian's chromium: a PDF hit shows its page and
heading path and opens the PDF itself at that page from the file route; a notebook's code
cell shows as code; a method above its own class names the class."""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import urlencode

import httpx
import pytest

from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.api.browser import CHROMIUM, searched
from tests.api.server import REQUEST_TIMEOUT_S, Server, running_server
from tests.chunking.readers.make_pdf import make_pdf
from tests.retrieval.test_owner_header_faces import HEADER
from tests.retrieval.test_owner_header_faces import QUERY as MEMBER_QUERY
from tests.retrieval.test_owner_header_faces import SOURCE as CLASS_SOURCE

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")

MANUAL = make_pdf(
    [["Introduction", "This manual explains the frobnicator."],
     ["Installation", "Unpack the archive and run the installer."],
     ["Mangling", "Private attribute names are mangled with the class name."]],
    outline=[(0, "Introduction", 0), (0, "Installation", 1), (1, "Mangling", 2)],
)
NOTEBOOK = json.dumps({
    "nbformat": 4, "nbformat_minor": 5,
    "metadata": {"language_info": {"name": "python", "file_extension": ".py"}},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Loading\n", "Read the table."]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1, "outputs": [],
         "source": ["def load_table(path):\n", "    return open(path).read().split()\n"]},
    ],
})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    base = tmp_path_factory.mktemp("documents")
    folder = base / "docs"
    folder.mkdir()
    (folder / "manual.pdf").write_bytes(MANUAL)
    (folder / "analysis.ipynb").write_text(NOTEBOOK)
    (folder / "models.py").write_text(CLASS_SOURCE)
    index_folder(Store(base / "store"), folder, IndexOptions(name="docs"))
    # Generous: on a busy machine the server takes minutes to load the model.
    with running_server(base / "store") as srv:
        yield srv


def test_a_pdf_hit_shows_its_page_and_opens_the_pdf_there(server: Server) -> None:
    from playwright.sync_api import expect

    with searched(server, "private attribute names mangled", "lexical") as page:
        first = page.locator(".hit").first.locator(".location a")
        expect(first).to_have_text("manual.pdf · page 3")
        expect(page.locator(".hit").first.locator(".symbol")).to_have_text(
            "Installation > Mangling")
        href = first.get_attribute("href") or ""
        assert href.endswith("/files/manual.pdf?raw=true#page=3")
        with page.context.expect_page() as opened:
            first.click()
        # The new tab asked the file route for the PDF itself, at the hit's page.
        assert opened.value.url.endswith("/files/manual.pdf?raw=true#page=3")
    served = httpx.get(server.url + href.split("#")[0], timeout=REQUEST_TIMEOUT_S)
    assert served.headers["content-type"] == "application/pdf"
    assert served.content == MANUAL


def test_a_notebook_code_cell_shows_as_code(server: Server) -> None:
    from playwright.sync_api import expect

    with searched(server, "load_table", "lexical") as page:
        hit = page.locator(".hit").first
        expect(hit.locator(".location a")).to_have_text("analysis.ipynb · cell 2")
        # Highlighted as the notebook's language: `def` is a Python keyword there.
        expect(hit.locator(".code .k").first).to_have_text("def")


def test_a_method_shows_in_its_class_card_or_else_names_its_class(server: Server) -> None:
    from playwright.sync_api import expect

    with searched(server, MEMBER_QUERY, "lexical") as page:
        card = page.locator(".hit").first
        expect(card.locator("h2 .symbol")).to_have_text("PreparedRequest")
        expect(card.locator(".member .symbol").first).to_have_text(
            "PreparedRequest.prepare_headers")
        expect(card.locator(".owner")).to_have_count(0)  # the card shows its class already
        # Alone (k=1 leaves its class out), the method names the class it lives in.
        page.goto(f"{server.url}/?{urlencode({'q': MEMBER_QUERY, 'mode': 'lexical', 'k': 1})}")
        expect(page.locator(".hit .symbol")).to_have_text("PreparedRequest.prepare_headers")
        expect(page.locator(".hit .owner")).to_have_text(f"in {HEADER}")
