"""One search over several collections: scores that compare, each hit with its collection."""

from __future__ import annotations

from pathlib import Path

import pytest

from embedstore.errors import (
    CollectionNotFoundError,
    CorruptCollectionError,
    EmbedstoreError,
    EncoderMismatchError,
)
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.federation import (
    LocalMember,
    Skipped,
    context_members,
    merge,
    open_members,
    search_members,
)
from embedstore.retrieval.search import SearchResult, search
from embedstore.store.collection import DB_FILE
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.fixture
def store(tmp_path: Path, fake_encoder: FakeEncoder) -> Store:
    store = Store(tmp_path / "store")
    web = write(tmp_path / "web", {
        "retry.py": "def retry_with_backoff(call):\n    return call()\n",
        "setup.py": "def setup_web():\n    pass\n",
    })
    cli = write(tmp_path / "cli", {
        "parse.py": "def parse_arguments(argv):\n    return argv\n",
        "setup.py": "def setup_cli():\n    pass\n",
    })
    index_folder(store, web, IndexOptions(name="web", encoder=FAKE_SPEC))
    index_folder(store, cli, IndexOptions(name="cli", encoder=FAKE_SPEC))
    return store


def members(store: Store, *names: str) -> list[LocalMember]:
    return [LocalMember(store.open(n)) for n in names]


@pytest.mark.parametrize("mode", ["hybrid", "dense", "lexical"])
def test_hits_come_from_every_collection_with_their_collection_and_path(
    store: Store, tmp_path: Path, mode: str
) -> None:
    hits = search_members(members(store, "web", "cli"), "parse arguments argv", 4, mode=mode)
    assert hits[0].collection == "cli" and hits[0].symbol == "parse_arguments"
    assert hits[0].abs_path == str(tmp_path / "cli" / "parse.py")
    # Lexically "web" holds none of the words; by meaning it still has neighbours.
    assert {h.collection for h in hits} == ({"cli"} if mode == "lexical" else {"web", "cli"})
    retry = search_members(members(store, "web", "cli"), "retry with backoff", 1, mode=mode)
    assert (retry[0].collection, retry[0].path) == ("web", "retry.py")


def test_a_member_alone_ranks_as_a_plain_search(store: Store) -> None:
    alone = search_members(members(store, "web"), "setup", 3)
    assert [h.id for h in alone] == [h.id for h in search(store.open("web"), "setup", 3)]


def test_merge_orders_by_score_and_normalises_bm25_per_member() -> None:
    def hit(collection: str, score: float) -> SearchResult:
        return SearchResult(0, "a.py", 1, 1, 1, 1, "python", "function", score, "",
                            collection=collection)

    dense = merge([[hit("a", 0.9), hit("a", 0.2)], [hit("b", 0.5)]], 3, "dense")
    assert [(h.collection, h.score) for h in dense] == [("a", 0.9), ("b", 0.5), ("a", 0.2)]
    lexical = merge([[hit("a", 30.0), hit("a", 3.0)], [hit("b", 2.0), hit("b", 1.0)]], 4,
                    "lexical")
    assert [(h.collection, h.score) for h in lexical] == [
        ("a", 1.0), ("b", 1.0), ("b", 0.5), ("a", 0.1)
    ]


def test_collections_of_different_encoders_are_refused_naming_the_groups(
    store: Store, tmp_path: Path
) -> None:
    other = write(tmp_path / "other", {"x.py": "def parse_other(argv):\n    return argv\n"})
    index_folder(store, other, IndexOptions(name="other", encoder=FAKE_SPEC, pooling="cls"))
    with pytest.raises(EncoderMismatchError, match=r"fake:hash \(cls, 64-d\): other") as refused:
        search_members(members(store, "web", "cli", "other"), "parse", 3)
    assert "web, cli" in str(refused.value)
    lexical = search_members(members(store, "web", "other"), "parse", 3, mode="lexical")
    assert lexical[0].collection == "other"


def test_context_over_collections_keeps_same_named_files_apart(store: Store) -> None:
    packed = context_members(members(store, "web", "cli"), "setup", 500,
                             lambda texts: [len(t.split()) for t in texts])
    paths = {b.path for b in packed.blocks}
    assert {"web/setup.py", "cli/setup.py"} <= paths


def corrupt_header(store: Store, name: str) -> None:
    """Garbage for a database, its log gone with it (the log may hold the real header)."""
    folder = store.root / name
    for log in folder.glob(f"{DB_FILE}-*"):
        log.unlink()
    (folder / DB_FILE).write_bytes(b"\xde\xad\xbe\xef" * 1024)


def test_a_damaged_collection_is_skipped_and_named_when_opened(store: Store) -> None:
    """Issue 30, G4: one damaged collection made every all-collections search fail."""
    corrupt_header(store, "web")
    opened, skipped = open_members(store.names(), store.open, missing_ok=True)
    assert [m.name for m in opened] == ["cli"]
    assert [s.collection for s in skipped] == ["web"] and "damaged" in skipped[0].reason
    hits = search_members(opened, "parse arguments", 3, skipped=skipped)
    assert hits[0].symbol == "parse_arguments" and hits.skipped == skipped
    packed = context_members(opened, "setup", 500, lambda texts: [1 for _ in texts],
                             skipped=skipped)
    assert packed.blocks and packed.skipped == skipped


def test_a_member_failing_in_its_search_is_skipped_and_named(store: Store) -> None:
    class Broken(LocalMember):
        def search(self, *args: object, **kwargs: object) -> list[SearchResult]:
            raise CorruptCollectionError("collection 'web' is damaged")

    broken = Broken(store.open("web"))
    hits = search_members([broken, *members(store, "cli")], "parse arguments", 3)
    assert {h.collection for h in hits} == {"cli"}
    assert hits.skipped == [Skipped("web", "collection 'web' is damaged")]
    # With nothing left to answer, the failure is the answer.
    with pytest.raises(CorruptCollectionError, match="'web' is damaged"):
        search_members([broken], "parse", 3)


def test_a_vanished_collection_is_skipped_only_when_every_one_was_asked_for(
    store: Store,
) -> None:
    """Issue 30, G5: a collection deleted between the listing and the search."""
    names = store.names()
    store.delete("web")
    opened, skipped = open_members(names, store.open, missing_ok=True)
    assert [m.name for m in opened] == ["cli"] and skipped[0].collection == "web"
    opened[0].collection.close()
    corrupt_header(store, "cli")
    with pytest.raises(EmbedstoreError, match=r"searched \(cli: .*'cli' is damaged.*; web: "):
        open_members(names, store.open, missing_ok=True)
    with pytest.raises(CollectionNotFoundError, match="'web'"):
        open_members(names, store.open, missing_ok=False)
