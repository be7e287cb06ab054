"""An app over a small collection "c" encoded by the fake encoder (fast, no model)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from fastapi.testclient import TestClient

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from tests.api.browser import WAIT_MS, launch
from tests.fakes import FAKE_SPEC, FakeEncoder

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


@pytest.fixture
def settings(tmp_path: Path, fake_encoder: FakeEncoder) -> ServerSettings:
    return ServerSettings(
        store=tmp_path / "store", preload_model=False, max_request_bytes=4096, max_k=50,
        max_query_chars=200, allowed_roots=[tmp_path],
    )


@pytest.fixture
def client(settings: ServerSettings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        created = c.post("/v1/collections", json={"name": "c", "encoder": FAKE_SPEC})
        assert created.status_code == 201, created.text
        c.post("/v1/collections/c/documents", json={"documents": [
            {"id": "a", "text": "def alpha():\n    return 'first'\n", "path": "a.py"},
        ]})
        yield c


def error_of(response) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    body = response.json()
    return response.status_code, body["error"]["code"], body["error"]["message"]


# The page tests' browser: one chromium per module, a fresh context (storage) per test.
@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        launched = launch(pw)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})  # its own storage
    context.set_default_timeout(WAIT_MS)  # clicks and page loads wait as long as expectations
    try:
        yield context.new_page()
    finally:
        context.close()
