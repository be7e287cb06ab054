"""Bad input through TestClient (fake encoder): JSON errors, 4xx, never a 500."""

from __future__ import annotations

import base64
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.cli.app import app as cli_app
from embedstore.errors import UserInputError
from tests.api.conftest import error_of
from tests.fakes import FAKE_SPEC


def test_unknown_collection_is_404(client: TestClient) -> None:
    status, code, message = error_of(client.post("/v1/collections/zz/search", json={"query": "x"}))
    assert (status, code) == (404, "not_found") and "zz" in message


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"query": "x", "k": 0}, "k: Input should be greater than or equal to 1"),
        ({"query": "x", "k": 51}, "k must be at most 50"),
        ({"query": ""}, "query"),
        ({"query": "x", "mode": "fuzzy"}, "mode"),
        ({"query": "x", "colour": "red"}, "colour"),
        ({"query": "y" * 201}, "limit is 200"),
        ({"query": "x", "filters": {"min_score": 3}}, "min_score"),
    ],
)
def test_invalid_fields_are_422_with_a_clear_message(
    client: TestClient, body: dict, fragment: str
) -> None:
    status, code, message = error_of(client.post("/v1/collections/c/search", json=body))
    assert (status, code) == (422, "invalid") and fragment in message


def test_invalid_json_is_422(client: TestClient) -> None:
    response = client.post("/v1/collections/c/search", content=b"{nope",
                           headers={"content-type": "application/json"})
    status, _, message = error_of(response)
    assert status == 422 and "not valid JSON" in message


def test_oversized_body_is_413(client: TestClient) -> None:
    docs = {"documents": [{"id": "big", "text": "x" * 5000}]}
    status, code, _ = error_of(client.post("/v1/collections/c/documents", json=docs))
    assert (status, code) == (413, "too_large")
    assert client.get("/v1/collections/c/documents/big").status_code == 404


def test_duplicate_document_ids_are_refused_and_nothing_is_written(client: TestClient) -> None:
    docs = {"documents": [{"id": "d", "text": "one"}, {"id": "d", "text": "two"}]}
    status, code, message = error_of(client.post("/v1/collections/c/documents", json=docs))
    assert (status, code) == (409, "conflict") and "unique" in message
    assert client.get("/v1/collections/c").json()["files"] == 1


def test_index_outside_allowed_roots_is_403(client: TestClient) -> None:
    status, code, _ = error_of(client.post("/v1/collections/c/index", json={"path": "/etc"}))
    assert (status, code) == (403, "forbidden")


def test_embeddings_shape_base64_and_refusals(client: TestClient) -> None:
    created = client.post("/v1/embeddings", json={"input": "hello", "model": FAKE_SPEC,
                                                  "encoding_format": "base64"})
    body = created.json()
    assert body["object"] == "list" and body["data"][0]["object"] == "embedding"
    vector = np.frombuffer(base64.b64decode(body["data"][0]["embedding"]), dtype="<f4")
    assert vector.shape == (64,) and abs(float(np.linalg.norm(vector)) - 1) < 1e-5
    status, _, message = error_of(client.post(
        "/v1/embeddings", json={"input": "x", "model": FAKE_SPEC, "dimensions": 8}))
    assert status == 400 and "cannot truncate" in message  # OpenAI's status (issue 31)
    status, _, message = error_of(client.post(
        "/v1/embeddings", json={"input": "x", "model": "someone/other-model"}))
    assert status == 404 and "not served" in message
    status, _, _ = error_of(client.post("/v1/embeddings", json={"input": []}))
    assert status == 400


def test_no_key_off_loopback_refuses_to_start(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match="without an API key"):
        create_app(ServerSettings(store=tmp_path, host="0.0.0.0", preload_model=False))
    result = CliRunner().invoke(cli_app, ["serve", "--host", "0.0.0.0", "--store", str(tmp_path)])
    assert result.exit_code == 1 and "without an API key" in result.stderr


def test_openapi_and_page_are_served(client: TestClient) -> None:
    assert "/v1/collections/{name}/search" in client.get("/openapi.json").json()["paths"]
    page = client.get("/")
    assert page.status_code == 200 and 'id="query"' in page.text
    assert client.get("/static/app.js").status_code == 200
    assert ".hl" in client.get("/static/highlight.css").text
