"""What the page tests share besides their fixtures (tests/api/conftest.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

if TYPE_CHECKING:
    from playwright.sync_api import Page


def params_of(page: Page) -> dict[str, list[str]]:
    """The page's search state, as its URL holds it."""
    return parse_qs(urlsplit(page.url).query)
