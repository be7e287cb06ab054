"""Findings of the third hardening review (issue 30) on the serving side (fake encoder)."""

from __future__ import annotations

import threading

from fastapi.testclient import TestClient

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.store.collection import DB_FILE
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
                if found.json()["skipped"]:
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
