"""/docs in Debian's chromium with every request beyond 127.0.0.1 blocked: Swagger UI is
served by the server itself, so the API docs render on a machine without internet."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from tests.api.browser import CHROMIUM, launch
from tests.api.server import REQUEST_TIMEOUT_S, serving_in_thread

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")


@pytest.fixture
def base_url(tmp_path: Path) -> Iterator[str]:
    settings = ServerSettings(store=tmp_path / "store", preload_model=False)
    with serving_in_thread(create_app(settings)) as url:
        yield url


def test_docs_render_with_the_network_blocked(base_url: str, tmp_path: Path) -> None:
    from playwright.sync_api import Route, expect, sync_playwright

    blocked: list[str] = []

    def only_loopback(route: Route) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.route("**/*", only_loopback)
            page.goto(base_url + "/docs")
            # Rendered from /openapi.json (OpenAPI 3.1): the title and the operations.
            expect(page.locator(".swagger-ui .info .title")).to_contain_text("embedstore")
            embeddings = page.locator(".opblock", has_text="/v1/embeddings")
            expect(embeddings).to_be_visible()
            expect(page.locator(".opblock", has_text="/v1/models/{model_id}")).to_be_visible()
            expect(page.locator(".swagger-ui .errors-wrapper")).to_have_count(0)
            embeddings.locator(".opblock-summary").click()  # it opens: the UI's script runs
            expect(embeddings.locator(".opblock-body")).to_be_visible()
            page.screenshot(path=str(tmp_path / "docs.png"))
        finally:
            browser.close()
    assert blocked == []  # nothing even tried to leave the machine
    assert (tmp_path / "docs.png").stat().st_size > 10_000


def test_docs_assets_are_local_and_nothing_else_is_served(base_url: str) -> None:
    with httpx.Client(base_url=base_url, timeout=REQUEST_TIMEOUT_S) as client:
        page = client.get("/docs").text
        assert "cdn" not in page and "/docs/assets/swagger-ui-bundle.js" in page
        script = client.get("/docs/assets/swagger-ui-bundle.js")
        assert script.status_code == 200 and "SwaggerUIBundle" in script.text
        assert client.get("/docs/assets/index.html").status_code == 404
        assert client.get("/redoc").status_code == 404  # ReDoc needs a CDN: off
