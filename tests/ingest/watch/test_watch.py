"""The watcher in-process: real watchfiles, SQLite and FAISS, the fake encoder (which
counts what it encodes). The real model and CLI are in test_watch_cli.py."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from embedstore.errors import EmbedstoreError
from embedstore.ingest import sources
from embedstore.ingest.indexer import IndexOptions, IndexReport, index_folder
from embedstore.ingest.watch import watch_folder
from embedstore.retrieval.search import search
from embedstore.store import db
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

OPTIONS = IndexOptions(name="repo", encoder=FAKE_SPEC)
# How long a test waits for the watcher to catch up: a bound for a stuck watcher, not a
# latency target (a change lands in well under a second on an idle machine).
DEADLINE = 300.0


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "lib").mkdir(parents=True)
    (root / ".gitignore").write_text("*.log\n")
    (root / "app.py").write_text("def main():\n    return start_server()\n")
    (root / "lib" / "util.py").write_text("def helper(x):\n    return x * 2\n")
    return root


@contextmanager
def watching(store: Store, root: Path) -> Iterator[list[IndexReport]]:
    """The watcher in a thread of its own; yields its reports, after the first run."""
    reports: list[IndexReport] = []
    errors: list[EmbedstoreError] = []
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    watcher = watch_folder(store, root, OPTIONS, on_report=reports.append,
                           on_error=errors.append, debounce_ms=100, stop_event=stop)
    thread = threading.Thread(target=loop.run_until_complete, args=(watcher,), daemon=True)
    thread.start()
    try:
        wait_for(lambda: bool(reports), "the first run")
        yield reports
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        loop.close()
    assert not thread.is_alive()
    assert errors == []


def wait_for(condition: Callable[[], bool], what: str, timeout: float = DEADLINE) -> float:
    """Seconds until ``condition`` held; fails after ``timeout``."""
    began = time.monotonic()
    while not condition():
        if time.monotonic() - began > timeout:
            pytest.fail(f"{what}: not within {timeout} s")
        time.sleep(0.05)
    return time.monotonic() - began


def top_path(store: Store, query: str) -> str | None:
    collection = store.open("repo")
    try:
        hits = search(collection, query, k=1, mode="lexical")
    finally:
        collection.close()
    return hits[0].path if hits else None


def indexed_paths(store: Store) -> set[str]:
    collection = store.open("repo")
    try:
        return set(db.files_by_path(collection.conn))
    finally:
        collection.close()


def test_an_edit_is_searchable_within_seconds_and_only_it_is_encoded(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    with watching(store, repo) as reports:
        assert reports[0].files_new == 3
        fake_encoder.encoded.clear()
        (repo / "lib" / "util.py").write_text(
            "def helper(x):\n    return x * 2\n\n\ndef rotate_tokens(vault):\n"
            "    return vault.rotate_every_token()\n"
        )
        wait_for(lambda: top_path(store, "rotate every token") == "lib/util.py", "the edit")
    assert fake_encoder.encoded
    assert all(text.startswith("lib/util.py\n") for text in fake_encoder.encoded)


def test_a_deleted_file_leaves_the_collection(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    with watching(store, repo):
        assert top_path(store, "helper") == "lib/util.py"
        (repo / "lib" / "util.py").unlink()
        wait_for(lambda: "lib/util.py" not in indexed_paths(store), "the deletion")
        assert top_path(store, "helper") is None


def test_nothing_is_encoded_when_nothing_changed(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    with watching(store, repo) as reports:
        fake_encoder.encoded.clear()
        # Same bytes, new mtime: a run checks the hashes and encodes nothing.
        stat = (repo / "app.py").stat()
        os.utime(repo / "app.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
        wait_for(lambda: len(reports) == 2, "the run after a touch")
        assert reports[1].nothing_changed and reports[1].chunks_encoded == 0
        # Files no scan would index: no run at all.
        (repo / "debug.log").write_text("ignored by .gitignore\n")
        (repo / "node_modules").mkdir()
        (repo / "node_modules" / "x.js").write_text("module.exports = 1;\n")
        time.sleep(2.0)
        assert len(reports) == 2
    assert fake_encoder.encoded == []


def test_the_lock_is_free_between_runs_and_a_locked_run_is_retried(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    with watching(store, repo) as reports:
        collection = store.open("repo")
        with collection.writing():  # the idle watcher holds no lock: this does not wait
            (repo / "app.py").write_text("def main():\n    return stop_everything()\n")
            time.sleep(3.0)  # the run meanwhile finds the collection locked
            assert len(reports) == 1
        collection.close()
        # On the retried run's report: the old app.py may already rank first for the query.
        wait_for(lambda: len(reports) == 2, "the retried run")
        assert reports[-1].files_changed == 1
        assert top_path(store, "stop everything") == "app.py"


def test_a_file_that_vanishes_mid_scan_is_left_out(
    repo: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    listing = sources._Scanner.listing

    def vanishing(self: sources._Scanner) -> Iterator[tuple[Path, str]]:
        for path, rel_path in listing(self):
            if rel_path == "lib/util.py":
                path.unlink()  # listed, then gone before it is read
            yield path, rel_path

    monkeypatch.setattr(sources._Scanner, "listing", vanishing)
    store = Store()

    report = index_folder(store, repo, OPTIONS)

    assert report.files_new == 2
    assert indexed_paths(store) == {".gitignore", "app.py"}
