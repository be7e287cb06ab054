"""Index, re-index, edit, delete: real SQLite and FAISS, the fake encoder."""

from __future__ import annotations

import itertools
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from embedstore.errors import CollectionLockedError, CollectionNotFoundError, EncoderMismatchError
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.search import search
from embedstore.store.collection import INDEX_FILE
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

FILES = {
    "config.py": (
        "def load_config(path):\n"
        "    \"\"\"Parse the config file and merge defaults.\"\"\"\n"
        "    data = read(path)\n"
        "    return merge(DEFAULTS, data)\n"
    ),
    "net/client.py": (
        "class HttpClient:\n"
        "    def fetch_page(self, url):\n"
        "        \"\"\"Download a web page over http.\"\"\"\n"
        "        return self.session.get(url)\n"
    ),
    "math_utils.py": (
        "def mean_of(values):\n"
        "    \"\"\"Arithmetic mean of numbers.\"\"\"\n"
        "    return sum(values) / len(values)\n"
    ),
}


def make_repo(root: Path) -> Path:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def run(store: Store, repo: Path, **kw: object) -> object:
    return index_folder(store, repo, IndexOptions(name="repo", encoder=FAKE_SPEC, **kw))  # type: ignore[arg-type]


def top_path(store: Store, query: str) -> str:
    return search(store.open("repo"), query, k=1)[0].path


def test_first_run_indexes_everything(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    report = run(store, repo)
    assert report.files_new == 3 and report.units_total == report.units_added >= 3
    assert report.chunks_encoded == len(fake_encoder.encoded)
    assert top_path(store, "parse config merge defaults") == "config.py"
    assert top_path(store, "download web page http") == "net/client.py"


def test_unchanged_rerun_encodes_nothing(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    run(store, repo)
    fake_encoder.encoded.clear()
    report = run(store, repo)
    assert fake_encoder.encoded == []
    assert report.nothing_changed and report.chunks_encoded == 0 and report.units_added == 0


def test_editing_one_file_re_encodes_only_its_chunks(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    run(store, repo)
    before = {r.path: r.id for r in search(store.open("repo"), "mean numbers http", k=10)}
    fake_encoder.encoded.clear()
    (repo / "config.py").write_text(FILES["config.py"] + "\n\ndef save_config(path, data):\n"
                                    "    \"\"\"Write settings back to disk.\"\"\"\n")
    report = run(store, repo)
    assert report.files_changed == 1 and report.files_unchanged == 2
    assert fake_encoder.encoded, "the changed file must be re-encoded"
    assert all(text.startswith("config.py\n") for text in fake_encoder.encoded)
    after = {r.path: r.id for r in search(store.open("repo"), "mean numbers http", k=10)}
    assert after["math_utils.py"] == before["math_utils.py"]
    assert top_path(store, "write settings back to disk") == "config.py"


def test_deleted_file_disappears(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    run(store, repo)
    (repo / "net" / "client.py").unlink()
    report = run(store, repo)
    assert report.files_deleted == 1 and report.units_removed >= 1
    paths = {r.path for r in search(store.open("repo"), "download web page http", k=10)}
    assert "net/client.py" not in paths
    assert store.open("repo").stats().files == 2


def test_other_pooling_is_refused_unless_rebuild(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    run(store, repo)
    with pytest.raises(EncoderMismatchError, match="--rebuild"):
        run(store, repo, pooling="cls")
    assert store.open("repo").manifest.pooling == "mean"  # nothing was touched
    report = run(store, repo, pooling="cls", rebuild=True)
    assert report.chunks_encoded == report.chunks_total
    assert store.open("repo").manifest.pooling == "cls"


def test_other_encoder_is_refused(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    run(store, repo)
    with pytest.raises(EncoderMismatchError, match="fake:hash"):
        index_folder(store, repo, IndexOptions(name="repo", encoder="all-MiniLM-L6-v2"))


def test_missing_faiss_file_is_rebuilt_from_sqlite(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    run(store, repo)
    (store.root / "repo" / INDEX_FILE).unlink()
    fake_encoder.encoded.clear()
    assert top_path(store, "parse config merge defaults") == "config.py"
    assert (store.root / "repo" / INDEX_FILE).exists()
    assert fake_encoder.encoded == []  # repaired from stored vectors, not re-encoded


def test_switching_index_kind_rebuilds_the_index(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    repo = tmp_path / "big"
    repo.mkdir()
    for i in range(400):
        (repo / f"m{i}.py").write_text(f"def handler_{i}(event):\n    return event.value + {i}\n")
    store = Store()
    run(store, repo)
    assert store.open("repo").manifest.index["kind"] == "flat"
    fake_encoder.encoded.clear()
    run(store, repo, index_kind="ivfpq")
    assert store.open("repo").manifest.index["kind"] == "ivfpq"
    assert fake_encoder.encoded == []
    hits = search(store.open("repo"), "handler_7 event value", k=5)
    assert len(hits) == 5


def test_ivfpq_built_from_sqlite_in_shards_equals_one_build_over_all_vectors(
    tmp_path: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The collection reads its vectors shard by shard: the index is the one-shot build."""
    from embedstore.indexes import VectorIndex
    from embedstore.store import collection as collection_module
    from embedstore.store import db

    repo = tmp_path / "big"
    repo.mkdir()
    for i in range(400):
        (repo / f"m{i}.py").write_text(f"def handler_{i}(event):\n    return event.value + {i}\n")
    monkeypatch.setattr(collection_module, "SHARD_UNITS", 64)  # 400 units: 7 shards
    store = Store()
    run(store, repo, index_kind="ivfpq")
    opened = store.open("repo")
    sharded = opened.vector_index()
    ids, vectors = db.all_vectors(opened.conn, opened.manifest.dim)
    dim = opened.manifest.dim
    whole = VectorIndex.build("ivfpq", dim, vectors, ids, seed=collection_module.SEED)
    assert sharded.params == whole.params and sharded.ntotal == whole.ntotal == 400
    for nprobe in (1, whole.params["nlist"]):
        got, expected = sharded.search(vectors[:50], 10, nprobe=nprobe), whole.search(
            vectors[:50], 10, nprobe=nprobe)
        np.testing.assert_array_equal(got[1], expected[1])
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)


def test_second_writer_is_refused(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    run(store, repo)
    with store.open("repo").writing(), pytest.raises(CollectionLockedError):
        run(store, repo)


def test_rm_removes_the_collection(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    run(store, repo)
    store.delete("repo")
    assert store.names() == []
    with pytest.raises(CollectionNotFoundError):
        store.open("repo")


def test_write_ahead_log_is_folded_back_after_a_run(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    run(store, repo)
    wal = store.root / "repo" / "meta.sqlite-wal"
    assert not wal.exists() or wal.stat().st_size == 0


def test_an_error_in_the_chunking_thread_fails_the_run_and_changes_nothing(
    repo: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunking runs beside encoding: its errors still reach the caller, before any commit.
    (One file's chunking failing costs that file only: see test_unchunkable_files.)"""
    store = Store()
    run(store, repo)
    (repo / "math_utils.py").write_text("def median_of(values):\n    return sorted(values)[0]\n")

    def broken(texts: list[str]) -> list[int]:
        raise RuntimeError("tokenizer exploded")

    monkeypatch.setattr(fake_encoder, "count_tokens", broken)
    with pytest.raises(RuntimeError, match="tokenizer exploded"):
        run(store, repo)
    monkeypatch.undo()
    assert top_path(store, "arithmetic mean of numbers") == "math_utils.py"  # the old version
    assert run(store, repo).files_changed == 1  # and the next run goes through


def test_many_files_chunked_while_encoding_give_every_unit_its_vector(
    tmp_path: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    import embedstore.ingest.encode as encode_stage

    monkeypatch.setattr(encode_stage, "PARK_EVERY", 7)  # many encode groups during chunking
    root = tmp_path / "many"
    root.mkdir()
    for i in range(40):
        (root / f"mod_{i}.py").write_text(f"def handler_{i}(event):\n    return event + {i}\n")
    store = Store()
    report = index_folder(store, root, IndexOptions(name="many", encoder=FAKE_SPEC))
    assert report.units_total == 40 and report.chunks_encoded == len(set(fake_encoder.encoded))
    collection = store.open("many")
    for i in (0, 17, 39):
        assert search(collection, f"handler_{i}", k=1, mode="lexical")[0].path == f"mod_{i}.py"
    rows = collection.conn.execute(
        "SELECT f.path, c.context, c.text, c.vector FROM chunks c "
        "JOIN units u ON u.id = c.unit_id JOIN files f ON f.id = u.file_id"
    ).fetchall()
    assert len(rows) == 40
    for path, context, text, blob in rows:  # each chunk holds the vector of its own text
        embedded = f"{path}\n{context}\n{text}" if context else f"{path}\n{text}"
        expected = FakeEncoder().encode([embedded])[0]  # (d,)
        stored = np.frombuffer(blob, dtype=np.float16).astype(np.float32)  # (d,)
        np.testing.assert_allclose(stored, expected, atol=2e-3)


def test_texts_chunked_ahead_are_encoded_longest_first_in_parts_of_park_every(
    tmp_path: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parts of similar lengths pad little: once chunking is ahead, each part is the
    longest PARK_EVERY texts waiting."""
    import embedstore.ingest.encode as encode_stage

    monkeypatch.setattr(encode_stage, "PARK_EVERY", 5)
    calls: list[list[str]] = []
    encode = fake_encoder.encode

    def recording(texts: list[str], **kwargs: Any) -> np.ndarray:
        if not calls:
            time.sleep(0.5)  # the chunker, far faster, finishes meanwhile
        calls.append(list(texts))
        return encode(texts, **kwargs)

    monkeypatch.setattr(fake_encoder, "encode", recording)
    root = tmp_path / "lengths"
    root.mkdir()
    for i in range(23):  # bodies of 23 different lengths, in shuffled file order
        body = " + ".join(["event"] * (1 + (i * 7) % 23))
        (root / f"mod_{i:02}.py").write_text(f"def handler_{i}(event):\n    return {body}\n")
    index_folder(Store(), root, IndexOptions(name="lengths", encoder=FAKE_SPEC))
    assert sum(map(len, calls)) == 23 and all(len(c) <= 5 for c in calls)
    assert len(calls) >= 5
    for longer, shorter in itertools.pairwise(calls[1:]):
        assert min(map(len, longer)) >= max(map(len, shorter))
