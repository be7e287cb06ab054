"""/v1/embeddings takes OpenAI's 2,048 inputs per request, so LangChain's defaults pass
(TestClient, fake encoder)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from tests.api.conftest import error_of
from tests.fakes import FAKE_SPEC, FakeEncoder

OPENAI_MAX_INPUTS = 2048


@pytest.fixture
def client(tmp_path: Path, fake_encoder: FakeEncoder) -> Iterator[TestClient]:
    # The fake encoder is served as the model of collection "c".
    with TestClient(create_app(ServerSettings(store=tmp_path / "store",
                                              preload_model=False))) as c:
        assert c.post("/v1/collections", json={"name": "c", "encoder": FAKE_SPEC}).is_success
        yield c


def embed(client: TestClient, inputs: list[str]) -> httpx.Response:
    return client.post("/v1/embeddings", json={"input": inputs, "model": FAKE_SPEC})


def test_openais_limit_of_inputs_per_request_is_taken_and_one_more_refused(
    client: TestClient,
) -> None:
    assert ServerSettings().max_embedding_inputs == OPENAI_MAX_INPUTS
    texts = [f"def f{i}(): return {i}" for i in range(OPENAI_MAX_INPUTS + 1)]
    done = embed(client, texts[:-1])
    assert done.status_code == 200, done.text
    assert [item["index"] for item in done.json()["data"]] == list(range(OPENAI_MAX_INPUTS))
    refused = embed(client, texts)
    assert error_of(refused) == (400, "invalid", "at most 2,048 inputs per request, got 2,049")
    assert refused.json()["error"]["param"] == "input"


def test_langchain_with_its_default_chunk_size(client: TestClient) -> None:
    from langchain_openai import OpenAIEmbeddings

    # LangChain sends 1,000 texts per request by default (it was refused over 256).
    # check_embedding_ctx_length=False is still needed: its default sends tiktoken's ids.
    embeddings = OpenAIEmbeddings(
        model=FAKE_SPEC, base_url=f"{client.base_url}/v1", http_client=client,
        api_key=SecretStr("unused-on-loopback"), check_embedding_ctx_length=False,
        max_retries=0,
    )
    assert embeddings.chunk_size == 1000
    texts = [f"settings merge number {i}" for i in range(1500)]
    vectors = embeddings.embed_documents(texts)  # 2 requests: 1,000 and 500 texts
    assert len(vectors) == 1500 and len(vectors[0]) == FakeEncoder.dim
