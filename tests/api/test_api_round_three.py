"""Findings of the third hardening review (issue 30) on the serving side (fake encoder)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.cli.app import app as cli_app
from embedstore.retrieval.tokenizers import load_tokenizer
from embedstore.store.collection import DB_FILE
from tests.api.conftest import error_of
from tests.fakes import FAKE_SPEC


def add_collection(client: TestClient, name: str, text: str) -> None:
    created = client.post("/v1/collections", json={"name": name, "encoder": FAKE_SPEC})
    assert created.status_code == 201, created.text
    added = client.post(f"/v1/collections/{name}/documents", json={"documents": [
        {"id": "x", "text": text, "path": "x.py"},
    ]})
    assert added.status_code < 300, added.text


def damage(settings: ServerSettings, name: str) -> None:
    """Garbage for a database, its log gone with it (the log may hold the real header)."""
    folder = settings.store / name
    for log in folder.glob(f"{DB_FILE}-*"):
        log.unlink()
    (folder / DB_FILE).write_bytes(b"\xde\xad\xbe\xef" * 1024)


def test_g4_a_damaged_collection_is_skipped_by_all_collections_requests(
    client: TestClient, settings: ServerSettings
) -> None:
    add_collection(client, "broken", "def beta():\n    return 'second'\n")
    damage(settings, "broken")
    found = client.post("/v1/search", json={"query": "alpha first"})
    assert found.status_code == 200, found.text
    body = found.json()
    assert [h["collection"] for h in body["results"]] == ["c"]
    assert body["collections"] == ["c"]
    (skipped,) = body["skipped"]
    assert skipped["collection"] == "broken" and "damaged" in skipped["reason"]
    packed = client.post("/v1/context", json={"query": "alpha first"})
    assert packed.status_code == 200, packed.text
    assert "def alpha" in packed.json()["text"]
    assert [s["collection"] for s in packed.json()["skipped"]] == ["broken"]
    # Named alone, the damaged collection's error is the answer.
    alone = client.post("/v1/search", json={"query": "alpha", "collections": ["broken"]})
    assert alone.status_code >= 400 and "damaged" in alone.text


def test_g5_a_collection_being_deleted_is_skipped_not_an_error(
    settings: ServerSettings,
) -> None:
    """While a DELETE waited for a search in flight, every all-collections search got 404."""
    with TestClient(create_app(settings)) as client:
        add_collection(client, "c", "def alpha():\n    return 'first'\n")
        add_collection(client, "doomed", "def omega():\n    return 'last'\n")
        cache = client.app.state.embedstore.collections  # type: ignore[attr-defined]
        deleted: list[int] = []
        with cache.lease("doomed"):  # a request in flight: the delete waits for it
            deleter = threading.Thread(
                target=lambda: deleted.append(client.delete("/v1/collections/doomed").status_code)
            )
            deleter.start()
            while True:  # until the delete has begun (it then refuses new leases)
                found = client.post("/v1/search", json={"query": "alpha first"})
                assert found.status_code == 200, found.text
                if found.json()["skipped"] or not deleter.is_alive():
                    break
            assert found.json()["skipped"][0]["collection"] == "doomed"
            assert "being deleted" in found.json()["skipped"][0]["reason"]
            assert [h["collection"] for h in found.json()["results"]] == ["c"]
            packed = client.post("/v1/context", json={"query": "alpha first"})
            assert packed.status_code == 200, packed.text
            assert packed.json()["skipped"][0]["collection"] == "doomed"
        deleter.join(30)
        assert deleted == [200]
        after = client.post("/v1/search", json={"query": "alpha first"}).json()
        assert after["collections"] == ["c"] and after["skipped"] == []


def save_tokenizer(folder: Path) -> Path:
    """A word-level tokenizer.json: one token per word."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder.mkdir(parents=True)
    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "alpha": 1}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(folder / "tokenizer.json"))
    return folder


@pytest.mark.parametrize("route", ["/v1/collections/c/context", "/v1/context"])
def test_g2_a_tokenizer_is_a_known_name_or_a_folder_under_an_allowed_root(
    client: TestClient, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch, route: str,
) -> None:
    """A bare name resolved against the server's working folder (outside --allow-root), and
    "~user" told whose home folders exist."""
    elsewhere = tmp_path_factory.mktemp("server-cwd")
    save_tokenizer(elsewhere / "tokdir")
    monkeypatch.chdir(elsewhere)
    load_tokenizer.cache_clear()
    for refused in ("tokdir", "./tokdir", "~root", "~daemon", "~nosuchuser", "~"):
        status, _, message = error_of(
            client.post(route, json={"query": "alpha", "tokenizer": refused})
        )
        assert status == 422, (refused, message)
        assert "/" not in message.replace("--allow-root", ""), message  # no path told
    outside = client.post(route, json={"query": "alpha", "tokenizer": str(elsewhere / "tokdir")})
    assert outside.status_code == 403, outside.text
    inside = save_tokenizer(tmp_path / "tok")
    for allowed in (str(inside), "cl100k_base"):
        packed = client.post(route, json={"query": "alpha", "tokenizer": allowed})
        assert packed.status_code == 200, (allowed, packed.text)
        assert packed.json()["tokens"] > 0
    no_file = client.post(route, json={"query": "alpha", "tokenizer": str(tmp_path)})
    assert no_file.status_code == 404 and str(tmp_path) in no_file.text  # the client's own words


def test_g3_a_home_folder_of_nobody_is_one_line_in_the_cli(client: TestClient) -> None:
    """"~nosuchuser" was a 47-line traceback (Path.expanduser raises RuntimeError)."""
    store = client.app.state.embedstore.store.root  # type: ignore[attr-defined]
    result = CliRunner().invoke(
        cli_app, ["context", "alpha", "--tokenizer", "~nosuchuser", "--store", str(store)]
    )
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1, result.stderr
    assert "tokenizer '~nosuchuser': no such folder" in lines[0]


CONTEXT_BODIES = [
    {"query": "alpha"}, {"code": "alpha("}, {"code": "x", "code_after": "y", "path": "a.py"},
    {}, {"query": "alpha", "code": "x"}, {"query": None, "code": "x"},
    {"code": "x", "query": None}, {"query": "alpha", "path": "a.py"},
    {"query": "alpha", "code_after": "y"}, {"query": "   "}, {"query": "alpha", "tokenizer": None},
    {"query": "alpha", "tokenizer": "cl100k_base"}, {"query": "alpha", "tokenizer": "tokdir"},
    {"query": "alpha", "tokenizer": "~root"},
]


def test_g12_the_context_schema_says_which_bodies_the_server_takes(
    client: TestClient,
) -> None:
    """The schema did not say "exactly one of query or code" (a null could stand in for a
    missing field), that a query may not be blank, nor what a tokenizer may be."""
    import jsonschema

    document = client.get("/openapi.json").json()
    validator = jsonschema.Draft202012Validator(
        {"$ref": "#/components/schemas/ContextRequest", "components": document["components"]}
    )
    for body in CONTEXT_BODIES:
        status = client.post("/v1/collections/c/context", json=body).status_code
        assert validator.is_valid(body) == (status != 422), (body, status)
    responses = document["paths"]["/v1/search"]["post"]["responses"]
    assert "no collection yet" in responses["400"]["description"]
    search = document["components"]["schemas"]["SearchRequest"]["properties"]["query"]
    assert search["pattern"] == r"\S"


def test_g12_an_empty_store_and_a_blank_query_answer_as_the_schema_says(
    settings: ServerSettings,
) -> None:
    with TestClient(create_app(settings)) as client:
        assert error_of(client.post("/v1/search", json={"query": "alpha"}))[:2] == (
            400, "bad_request"
        )
        add_collection(client, "c", "def alpha():\n    return 'first'\n")
        status, _, message = error_of(client.post("/v1/search", json={"query": " \t"}))
        assert status == 422 and "the query is empty" in message
