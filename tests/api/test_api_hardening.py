"""Findings of the hardening review (issue 10) that a TestClient reproduces (fake encoder)."""

from __future__ import annotations

from pathlib import Path

import pytest
import uvicorn
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from embedstore.api.app import create_app
from embedstore.api.routes import embeddings as embeddings_route
from embedstore.api.settings import ServerSettings
from embedstore.cli.app import app as cli_app
from embedstore.errors import UserInputError
from tests.api.conftest import error_of
from tests.fakes import FAKE_SPEC, FakeEncoder


@pytest.mark.parametrize("keys", [[""], ["  "], ["good", ""]])
def test_f1_empty_api_key_is_refused_with_the_reason(tmp_path: Path, keys: list[str]) -> None:
    for host in ("0.0.0.0", "127.0.0.1"):
        with pytest.raises(UserInputError, match="must not be empty"):
            create_app(ServerSettings(store=tmp_path, host=host, api_keys=keys,
                                      preload_model=False))


def test_f1_serve_with_an_empty_key_does_not_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def serve_forever(*args: object, **kwargs: object) -> None:
        raise AssertionError("the server started with an empty key")

    monkeypatch.setattr(uvicorn, "run", serve_forever)
    result = CliRunner().invoke(
        cli_app, ["serve", "--host", "0.0.0.0", "--api-key", "", "--store", str(tmp_path)]
    )
    assert result.exit_code == 1 and "must not be empty" in result.stderr


def upsert(client: TestClient, *docs: dict) -> tuple[int, str, str]:
    return error_of(client.post("/v1/collections/c/documents", json={"documents": list(docs)}))


@pytest.mark.parametrize(
    "doc",
    [
        {"id": "nul\u0000id", "text": "hello"},
        {"id": "tab\tid", "text": "hello"},
        {"id": "ok", "text": "hello", "path": "p\u0000.txt"},
        {"id": "ok", "text": "hello", "path": "line\nbreak.txt"},
        {"id": "x" * 513, "text": "hello"},
    ],
)
def test_f5_control_characters_and_long_ids_are_refused(client: TestClient, doc: dict) -> None:
    for _ in range(2):  # the second identical request used to be a 500
        status, code, _ = upsert(client, doc)
        assert (status, code) == (422, "invalid")
    assert client.get("/v1/collections/c").json()["files"] == 1


def test_f6_two_documents_with_one_path_are_a_409_naming_both(client: TestClient) -> None:
    status, code, message = upsert(
        client,
        {"id": "s1", "text": "a", "path": "p.txt"},
        {"id": "s2", "text": "b", "path": "p.txt"},
    )
    assert (status, code) == (409, "conflict")
    assert "'s1'" in message and "'s2'" in message and "'p.txt'" in message
    assert client.get("/v1/collections/c").json()["files"] == 1


def test_f6_a_path_equal_to_another_documents_id_is_a_409(client: TestClient) -> None:
    status, code, message = upsert(
        client, {"id": "s1", "text": "a"}, {"id": "s2", "text": "b", "path": "s1"}
    )
    assert (status, code) == (409, "conflict") and "'s1'" in message and "'s2'" in message


@pytest.mark.parametrize(
    "filters", [{"min_score": False}, {"min_score": "0.5"}, {"include": "*.py"}]
)
def test_f11_lax_coercion_is_refused(client: TestClient, filters: dict) -> None:
    status, _, message = error_of(
        client.post("/v1/collections/c/search", json={"query": "x", "filters": filters})
    )
    assert status == 422 and "filters" in message


def test_f11_search_k_true_is_not_one(client: TestClient) -> None:
    status, _, _ = error_of(client.post("/v1/collections/c/search", json={"query": "x", "k": True}))
    assert status == 422


def nested(depth: int) -> dict:
    """``depth`` levels of containers in few bytes: {"n": [[...[1]...]]}."""
    value: list = [1]
    for _ in range(depth - 2):
        value = [value]
    return {"n": value}


def test_f11_metadata_that_cannot_be_read_back_is_refused(client: TestClient) -> None:
    for depth in (33, 900):
        status, _, message = upsert(client, {"id": "deep", "text": "t", "metadata": nested(depth)})
        assert status == 422 and "deep" in message
    status, _, message = error_of(client.post(
        "/v1/collections/c/documents", content=b'{"documents": [{"id": "nan", "text": "t", '
        b'"metadata": {"x": NaN}}]}', headers={"content-type": "application/json"}))
    assert status == 422 and "finite" in message
    # what is accepted reads back unchanged
    ok = nested(32)
    assert client.post("/v1/collections/c/documents", json={"documents": [
        {"id": "ok", "text": "t", "metadata": ok}]}).status_code == 200
    assert client.get("/v1/collections/c/documents/ok").json()["metadata"] == ok


def test_f11_openapi_declares_statuses_limits_and_media_types(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    search = spec["paths"]["/v1/collections/{name}/search"]["post"]
    assert {"400", "404", "409", "413", "422"} <= set(search["responses"])
    schemas = spec["components"]["schemas"]
    assert schemas["SearchRequest"]["properties"]["k"]["maximum"] == 50
    assert schemas["SearchRequest"]["properties"]["query"]["maxLength"] == 200
    metrics = spec["paths"]["/metrics"]["get"]["responses"]["200"]["content"]
    assert list(metrics) == ["text/plain"]


def test_f9_embeddings_cap_total_tokens_per_request(settings: ServerSettings) -> None:
    capped = settings.model_copy(update={"max_embedding_tokens": 20})
    with TestClient(create_app(capped)) as client:
        # A collection of the fake encoder makes it a served model.
        client.post("/v1/collections", json={"name": "c", "encoder": FAKE_SPEC})
        # The fake encoder counts words + 2: 3 inputs of 8 tokens each is 24.
        body = {"input": ["one two three four five six"] * 3, "model": FAKE_SPEC}
        status, _, message = error_of(client.post("/v1/embeddings", json=body))
        assert status == 400 and "20 tokens" in message  # OpenAI's status (issue 31)
        body["input"] = body["input"][:2]
        ok = client.post("/v1/embeddings", json=body).json()
        assert ok["usage"]["prompt_tokens"] == 16 and len(ok["data"]) == 2


def test_f9_embeddings_are_encoded_in_bounded_groups(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real_encode = FakeEncoder.encode

    def spy(self: FakeEncoder, texts, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(len(texts))
        return real_encode(self, texts, **kwargs)

    monkeypatch.setattr(FakeEncoder, "encode", spy)
    monkeypatch.setattr(embeddings_route, "GROUP_CHARS", 20)
    texts = [f"input number {i}" for i in range(6)]  # 14 characters each
    response = client.post("/v1/embeddings", json={"input": texts, "model": FAKE_SPEC})
    assert response.status_code == 200 and len(response.json()["data"]) == 6
    assert calls == [1] * 6
