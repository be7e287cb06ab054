"""Documents pushed by id share the pipeline with files (fake encoder, real store)."""

from __future__ import annotations

from pathlib import Path

import pytest

from embedstore.errors import UserInputError
from embedstore.ingest.documents import Document
from embedstore.ingest.indexer import IndexOptions, delete_documents, index_folder, upsert_documents
from embedstore.retrieval.search import search
from embedstore.store import db
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder


@pytest.fixture
def store(fake_encoder: FakeEncoder, tmp_path: Path) -> Store:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "main.py").write_text("def main():\n    run_everything()\n")
    the_store = Store()
    index_folder(the_store, repo, IndexOptions(name="c", encoder=FAKE_SPEC))
    return the_store


def test_upsert_get_update_delete(store: Store, fake_encoder: FakeEncoder) -> None:
    doc = Document("n1", "Rotate keys every ninety days.", path="notes/keys.md",
                   metadata={"owner": "sec"})
    assert upsert_documents(store, "c", [doc]).files_new == 1
    collection = store.open("c")
    record, text, metadata = db.document(collection.conn, "n1") or (None, "", "")
    assert record is not None and record.path == "notes/keys.md" and record.language == "markdown"
    assert text == doc.text and metadata == '{"owner": "sec"}'
    hit = search(collection, "rotate keys ninety days", k=1)[0]
    assert (hit.document_id, hit.path) == ("n1", "notes/keys.md")

    fake_encoder.encoded.clear()
    same = upsert_documents(store, "c", [doc])
    assert same.files_unchanged == 1 and fake_encoder.encoded == []
    retagged = upsert_documents(store, "c", [Document("n1", doc.text, "notes/keys.md",
                                                       metadata={"owner": "ops"})])
    assert retagged.files_changed == 1 and fake_encoder.encoded == []  # same text: reused
    assert db.document(store.open("c").conn, "n1")[2] == '{"owner": "ops"}'  # type: ignore[index]

    assert delete_documents(store, "c", ["n1", "missing"]) == 1
    assert db.document(store.open("c").conn, "n1") is None
    assert [h.path for h in search(store.open("c"), "rotate keys", k=5)] == ["main.py"]


def test_folder_reindex_keeps_documents(store: Store, tmp_path: Path) -> None:
    upsert_documents(store, "c", [Document("n1", "pushed by the API")])
    index_folder(store, tmp_path / "repo", IndexOptions(name="c"))
    assert db.document(store.open("c").conn, "n1") is not None


def test_a_path_belongs_to_one_owner(store: Store) -> None:
    with pytest.raises(UserInputError, match="already used by an indexed file"):
        upsert_documents(store, "c", [Document("x", "text", path="main.py")])
    with pytest.raises(UserInputError, match="unique"):
        upsert_documents(store, "c", [Document("a", "1"), Document("a", "2")])
