"""Re-indexing reads only files whose stamp moved, unless a stamp is too recent to trust.

Real SQLite and FAISS, the fake encoder; ``_load`` (the one place a file is
read) is wrapped to see which files a run reads.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from embedstore.ingest import sources
from embedstore.ingest.indexer import IndexOptions, IndexReport, index_folder
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

HOUR_NS = 3600 * 1_000_000_000


def write(root: Path, files: dict[str, str]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)


def age(root: Path) -> None:
    """Set every file's mtime an hour back, as for files edited long before a scan."""
    past = time.time_ns() - HOUR_NS
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(past, past))


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The rel_paths read by ``sources._load`` since the fixture started."""
    seen: list[str] = []
    load = sources._load

    def counting(
        path: Path, rel_path: str, max_bytes: int, stats: sources.ScanStats
    ) -> sources.SourceFile | sources.SkipReason:
        seen.append(rel_path)
        return load(path, rel_path, max_bytes, stats)

    monkeypatch.setattr(sources, "_load", counting)
    return seen


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {
        "app.py": "def main():\n    return run_server()\n",
        "lib/util.py": "def helper(x):\n    return x * 2\n",
        "lib/text.py": "def shout(s):\n    return s.upper()\n",
    })
    age(root)
    return root


def index(store: Store, root: Path, *, rebuild: bool = False) -> IndexReport:
    return index_folder(store, root, IndexOptions(name="repo", encoder=FAKE_SPEC, rebuild=rebuild))


def symbols(store: Store) -> set[str]:
    collection = store.open("repo")
    try:
        rows = collection.conn.execute("SELECT symbol FROM units").fetchall()
    finally:
        collection.close()
    return {row[0] for row in rows}


def test_an_unchanged_tree_is_not_read_again(
    repo: Path, reads: list[str], fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index(store, repo)
    assert sorted(reads) == ["app.py", "lib/text.py", "lib/util.py"]
    reads.clear()
    report = index(store, repo)
    assert reads == []
    assert report.nothing_changed
    assert (report.files_scanned, report.files_unchanged) == (3, 3)
    assert symbols(store) == {"main", "helper", "shout"}


def test_only_the_edited_file_is_read_and_a_deleted_one_leaves(
    repo: Path, reads: list[str], fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index(store, repo)
    reads.clear()
    write(repo, {"lib/util.py": "def doubled(x):\n    return x + x\n"})
    (repo / "lib" / "text.py").unlink()
    report = index(store, repo)
    assert reads == ["lib/util.py"]
    assert (report.files_changed, report.files_deleted, report.files_unchanged) == (1, 1, 1)
    assert symbols(store) == {"main", "doubled"}


def test_a_stamp_recorded_within_the_racy_margin_is_read_again(
    repo: Path, reads: list[str], fake_encoder: FakeEncoder
) -> None:
    """A file written just before a scan may be rewritten in the same clock tick."""
    store = Store()
    write(repo, {"app.py": "def main():\n    return run_server()\n"})  # mtime: now
    recent = (repo / "app.py").stat().st_mtime_ns
    index(store, repo)
    reads.clear()
    # Same size, and the mtime put back to what was recorded: the stamp cannot tell.
    write(repo, {"app.py": "def mend():\n    return run_server()\n"})
    os.utime(repo / "app.py", ns=(recent, recent))
    report = index(store, repo)
    assert reads == ["app.py"]
    assert report.files_changed == 1
    assert "mend" in symbols(store)


def test_rebuild_reads_everything(
    repo: Path, reads: list[str], fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index(store, repo)
    reads.clear()
    index(store, repo, rebuild=True)
    assert sorted(reads) == ["app.py", "lib/text.py", "lib/util.py"]
