"""Index, re-index, edit, delete: real SQLite and FAISS, the fake encoder."""

from __future__ import annotations

from pathlib import Path

import pytest

from embedstore.errors import CollectionLockedError, CollectionNotFoundError, EncoderMismatchError
from embedstore.indexing import IndexOptions, index_folder
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
    return store.open("repo").search(query, k=1)[0].path


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
    before = {r.path: r.id for r in store.open("repo").search("mean numbers http", k=10)}
    fake_encoder.encoded.clear()
    (repo / "config.py").write_text(FILES["config.py"] + "\n\ndef save_config(path, data):\n"
                                    "    \"\"\"Write settings back to disk.\"\"\"\n")
    report = run(store, repo)
    assert report.files_changed == 1 and report.files_unchanged == 2
    assert fake_encoder.encoded, "the changed file must be re-encoded"
    assert all(text.startswith("config.py\n") for text in fake_encoder.encoded)
    after = {r.path: r.id for r in store.open("repo").search("mean numbers http", k=10)}
    assert after["math_utils.py"] == before["math_utils.py"]
    assert top_path(store, "write settings back to disk") == "config.py"


def test_deleted_file_disappears(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    run(store, repo)
    (repo / "net" / "client.py").unlink()
    report = run(store, repo)
    assert report.files_deleted == 1 and report.units_removed >= 1
    paths = {r.path for r in store.open("repo").search("download web page http", k=10)}
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
    hits = store.open("repo").search("handler_7 event value", k=5)
    assert len(hits) == 5


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
