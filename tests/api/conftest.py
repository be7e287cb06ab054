"""An app over a small collection "c" encoded by the fake encoder (fast, no model)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from tests.fakes import FAKE_SPEC, FakeEncoder


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
