"""The OpenAI embeddings surface: /v1/models, token-id inputs, base64, with the OpenAI
client and LangChain against a real uvicorn server running the real default model."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import openai
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.encoders.registry import (
    DEFAULT_ENCODER,
    STOCK_ENCODER,
    bundled_source,
    load_encoder,
)
from tests.api.conftest import error_of
from tests.api.server import REQUEST_TIMEOUT_S, SERVED_PRECISION, Server, running_server
from tests.fakes import FAKE_SPEC

TEXTS = [
    "def parse_config(path):\n    return json.load(open(path))",
    "close the file cache",
    "Merge user settings over the defaults.",
]


# --- through TestClient: routing, shapes and refusals (the fake encoder of collection "c")


def test_models_lists_the_default_model_and_each_collections_encoder(client: TestClient) -> None:
    listed = client.get("/v1/models").json()
    assert listed["object"] == "list"
    # The code-tuned default first, then the stock model and the collections' encoders.
    assert [m["id"] for m in listed["data"]] == [DEFAULT_ENCODER, FAKE_SPEC, STOCK_ENCODER]
    default, fake, stock = listed["data"]
    assert default == {"id": DEFAULT_ENCODER, "object": "model", "created": 0,
                       "owned_by": "embedstore", "collections": []}
    assert stock["owned_by"] == "sentence-transformers" and stock["collections"] == []
    assert fake["owned_by"] == "local" and fake["collections"] == ["c"]
    assert client.get(f"/v1/models/{FAKE_SPEC}").json() == fake
    # Another spelling of a served model answers with its id; slashes are part of ids.
    assert client.get("/v1/models/all-MiniLM-L6-v2").json()["id"] == STOCK_ENCODER
    assert client.get("/v1/models/minilm-l6-code").json()["id"] == DEFAULT_ENCODER
    assert client.get(f"/v1/models/{DEFAULT_ENCODER}").json() == default


# "~Æ" (the home of no user) and a name too long for the system were 500s (issue 21's fuzz run).
@pytest.mark.parametrize("name", ["someone/other-model", "etc", "/etc", "/no/such/folder", "~",
                                  "~\u00c6", "x" * 300])
def test_an_unserved_model_is_404_with_one_message_whatever_the_name(
    client: TestClient, name: str
) -> None:
    status, code, message = error_of(client.get(f"/v1/models/{name}"))
    # The same words for an existing and a missing server folder: nothing to probe with.
    assert (status, code) == (404, "model_not_found")
    assert message == f"model {name!r} is not served here; GET /v1/models lists the models that are"
    assert error_of(client.post("/v1/embeddings", json={"input": "x", "model": name})) == (
        status, code, message)


def test_a_model_without_a_tokenizer_refuses_token_ids(client: TestClient) -> None:
    response = client.post("/v1/embeddings", json={"input": [[1, 2, 3]], "model": FAKE_SPEC})
    status, _, message = error_of(response)
    assert status == 400 and "takes text only" in message
    assert response.json()["error"]["param"] == "input"


@pytest.mark.parametrize("bad", [[], [[]], [-1], [[1], "a"], [1, "a"], [True], [[1.5]]])
def test_malformed_inputs_are_400_as_openai_answers(client: TestClient, bad: object) -> None:
    """Issue 31: 422 made OpenAI's client raise UnprocessableEntityError, not BadRequestError."""
    response = client.post("/v1/embeddings", json={"input": bad})
    assert error_of(response)[:2] == (400, "invalid")
    assert response.json()["error"]["type"] == "invalid_request_error"
    assert response.json()["error"]["param"].startswith("input")


def test_a_body_that_is_no_json_is_400_on_the_openai_route_and_422_elsewhere(
    client: TestClient,
) -> None:
    headers = {"content-type": "application/json"}
    assert client.post("/v1/embeddings", content=b"{", headers=headers).status_code == 400
    assert client.post("/v1/collections", content=b"{", headers=headers).status_code == 422


@pytest.mark.parametrize(("bad", "message", "param"), [
    ("", "input: String should have at least 1 character", "input"),
    ([], "input: List should have at least 1 item after validation, not 0", "input"),
    (["ok", ""], "input.1: String should have at least 1 character", "input.1"),
    ([3, -1], "input.1: Input should be greater than or equal to 0", "input.1"),
    (3, "input: must be a text, a list of texts, a list of token ids or a list of such lists",
     "input"),
])
def test_a_malformed_input_is_one_openai_error_naming_its_field(
    client: TestClient, bad: object, message: str, param: str
) -> None:
    """Issue 21: an empty input listed the errors of all four shapes it may take."""
    response = client.post("/v1/embeddings", json={"input": bad})
    assert response.status_code == 400
    assert response.json()["error"] == {
        "code": "invalid", "message": message, "type": "invalid_request_error", "param": param,
    }


def test_the_schema_bounds_token_lists_by_the_token_cap_not_the_item_cap(
    client: TestClient, settings: ServerSettings,
) -> None:
    variants = client.get("/openapi.json").json()[
        "components"]["schemas"]["EmbeddingsRequest"]["properties"]["input"]["oneOf"]
    texts, ids, id_lists = variants[1], variants[2], variants[3]
    assert texts["maxItems"] == settings.max_embedding_inputs
    assert texts["items"]["maxLength"] == settings.max_document_chars
    assert ids["maxItems"] == settings.max_embedding_tokens
    assert id_lists["maxItems"] == settings.max_embedding_inputs
    assert id_lists["items"]["maxItems"] == settings.max_embedding_tokens


# --- against `embedstore serve` with the real default model


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("openai") / "store") as srv:
        created = httpx.post(f"{srv.url}/v1/collections", json={"name": "notes"},
                             timeout=REQUEST_TIMEOUT_S)
        assert created.status_code == 201, created.text
        yield srv


@pytest.fixture(scope="module")
def tokenizer() -> Any:
    """The default model's own tokenizer, loaded as a client would load it."""
    from transformers import AutoTokenizer

    # The adapter leaves the stock model's tokenizer as it is.
    folder, _ = bundled_source(STOCK_ENCODER) or pytest.fail("the stock model is not installed")
    return AutoTokenizer.from_pretrained(folder)


@pytest.fixture(scope="module")
def openai_client(server: Server) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="unused-on-loopback", max_retries=0)


def test_openai_client_lists_and_retrieves_models(openai_client: openai.OpenAI) -> None:
    models = list(openai_client.models.list())
    assert [m.id for m in models] == [DEFAULT_ENCODER, STOCK_ENCODER]
    assert models[0].object == "model" and models[0].model_extra == {"collections": ["notes"]}
    assert openai_client.models.retrieve("all-MiniLM-L6-v2").id == STOCK_ENCODER
    # The client percent-encodes the slash of a hub name; the route takes it back.
    assert openai_client.models.retrieve(DEFAULT_ENCODER).owned_by == "embedstore"
    with pytest.raises(openai.NotFoundError, match="not served here"):
        openai_client.models.retrieve("text-embedding-3-small")


def test_float_and_base64_give_the_same_vectors(
    server: Server, openai_client: openai.OpenAI,
) -> None:
    as_float = openai_client.embeddings.create(
        model="all-MiniLM-L6-v2", input=TEXTS, encoding_format="float")
    got = np.array([d.embedding for d in as_float.data], dtype=np.float32)
    expected = load_encoder("all-MiniLM-L6-v2", precision=SERVED_PRECISION).encode(TEXTS)
    np.testing.assert_allclose(got, expected, atol=1e-5)
    # Raw HTTP, so the client's own base64 decoding is not what is tested.
    raw = httpx.post(f"{server.url}/v1/embeddings", json={
        "model": "all-MiniLM-L6-v2", "input": TEXTS, "encoding_format": "base64"},
        timeout=REQUEST_TIMEOUT_S).json()
    decoded = np.stack([np.frombuffer(base64.b64decode(d["embedding"]), dtype="<f4")
                        for d in raw["data"]])
    np.testing.assert_array_equal(decoded, got)
    assert raw["usage"] == {"prompt_tokens": as_float.usage.prompt_tokens,
                            "total_tokens": as_float.usage.total_tokens}


def test_token_ids_give_the_vector_and_usage_of_their_text(
    openai_client: openai.OpenAI, tokenizer: Any,
) -> None:
    long_text = " ".join(f"word{i}" for i in range(400))  # over the 256-token limit: cut alike
    texts = [*TEXTS, long_text]
    ids = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    assert len(ids[-1]) > 256
    by_text = openai_client.embeddings.create(model=DEFAULT_ENCODER, input=texts)
    by_ids = openai_client.embeddings.create(model=DEFAULT_ENCODER, input=ids)
    np.testing.assert_allclose([d.embedding for d in by_ids.data],
                               [d.embedding for d in by_text.data], atol=1e-5)
    assert by_ids.usage.prompt_tokens == by_text.usage.prompt_tokens
    assert by_ids.usage.prompt_tokens == sum(len(i) + 2 for i in ids)  # [CLS] and [SEP] each
    # One list of ids is one input. Compared with its text alone: in a batch, padding moves
    # the last digits where the CPU encodes in bf16.
    one = openai_client.embeddings.create(model=DEFAULT_ENCODER, input=ids[0])
    alone = openai_client.embeddings.create(model=DEFAULT_ENCODER, input=texts[0])
    assert len(one.data) == 1
    np.testing.assert_allclose(one.data[0].embedding, alone.data[0].embedding, atol=1e-5)


def test_token_ids_get_the_models_document_prompt_as_text_does(
    tmp_path: Path, tokenizer: Any,
) -> None:
    """A model with prompts: the default model's files under a config that adds them."""
    source, _ = bundled_source(STOCK_ENCODER) or pytest.fail("the stock model is not installed")
    folder = tmp_path / "prompted"
    folder.mkdir()
    for item in Path(source).iterdir():
        if item.name != "config_sentence_transformers.json":
            (folder / item.name).symlink_to(item)
    (folder / "config_sentence_transformers.json").write_text(
        json.dumps({"prompts": {"query": "query: ", "document": "passage: "}}))
    settings = ServerSettings(store=tmp_path / "store", preload_model=False)
    with TestClient(create_app(settings)) as client:
        created = client.post("/v1/collections", json={"name": "p", "encoder": str(folder)})
        assert created.status_code == 201, created.text

        def embed(model: str, value: object) -> np.ndarray:
            response = client.post("/v1/embeddings", json={"model": model, "input": value})
            assert response.status_code == 200, response.text
            return np.array(response.json()["data"][0]["embedding"])

        text = TEXTS[2]
        prompted = embed(str(folder), text)
        np.testing.assert_allclose(
            embed(str(folder), tokenizer(text, add_special_tokens=False)["input_ids"]),
            prompted, atol=1e-5)
        assert float(prompted @ embed(STOCK_ENCODER, text)) < 0.999  # the prompt counts


def test_ids_outside_the_vocabulary_are_a_bad_request_naming_tiktoken(
    openai_client: openai.OpenAI,
) -> None:
    # 100257 is tiktoken cl100k's end-of-text: what LangChain's default would send.
    with pytest.raises(openai.BadRequestError) as refused:
        openai_client.embeddings.create(model=DEFAULT_ENCODER, input=[[7, 8], [101, 100257]])
    assert refused.value.status_code == 400 and refused.value.param == "input.1"
    assert refused.value.type == "invalid_request_error"
    assert "token id 100257 is outside the vocabulary" in refused.value.message
    assert "tiktoken" in refused.value.message


def test_dimensions_other_than_the_models_are_refused(openai_client: openai.OpenAI) -> None:
    same = openai_client.embeddings.create(model=DEFAULT_ENCODER, input="x", dimensions=384)
    assert len(same.data[0].embedding) == 384
    with pytest.raises(openai.BadRequestError, match="cannot truncate") as refused:
        openai_client.embeddings.create(model=DEFAULT_ENCODER, input="x", dimensions=128)
    assert (refused.value.param, refused.value.type) == ("dimensions", "invalid_request_error")


@pytest.mark.parametrize(("value", "param"), [([], "input"), (["ok", ""], "input.1"),
                                              ([[3, -1]], "input.0.1")])
def test_malformed_inputs_raise_the_openai_clients_bad_request_error(
    openai_client: openai.OpenAI, value: Any, param: str,
) -> None:
    with pytest.raises(openai.BadRequestError) as refused:
        openai_client.embeddings.create(model=DEFAULT_ENCODER, input=value)
    assert (refused.value.param, refused.value.type) == (param, "invalid_request_error")


def test_langchain_openai_embeddings_against_the_server(server: Server) -> None:
    from langchain_openai import OpenAIEmbeddings

    # check_embedding_ctx_length=False: LangChain sends the texts themselves. Its default
    # cuts texts with tiktoken and sends tiktoken ids, which no other model can read.
    embeddings = OpenAIEmbeddings(
        model="all-MiniLM-L6-v2", base_url=f"{server.url}/v1",
        api_key=SecretStr("unused-on-loopback"), check_embedding_ctx_length=False,
        chunk_size=2, max_retries=0,
    )
    documents = np.array(embeddings.embed_documents(TEXTS), dtype=np.float32)  # 2 requests
    query = np.array(embeddings.embed_query("where are settings merged?"), dtype=np.float32)
    encoder = load_encoder("all-MiniLM-L6-v2", precision=SERVED_PRECISION)
    np.testing.assert_allclose(documents, encoder.encode(TEXTS), atol=1e-5)
    np.testing.assert_allclose(query, encoder.encode(["where are settings merged?"])[0], atol=1e-5)
    assert int(np.argmax(documents @ query)) == 2  # the settings sentence
