"""The store under abuse: odd file names, racing writers, damaged files, killed runs."""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from typer.testing import CliRunner

from embedstore.atomic_files import replace_atomically
from embedstore.cli.app import app as cli_app
from embedstore.errors import (
    CollectionLockedError,
    CorruptCollectionError,
    LexicalIndexError,
    StorageError,
    UserInputError,
    VectorIndexError,
)
from embedstore.indexes.io import read_index_file
from embedstore.indexes.segment_file import read_segment
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store import connection
from embedstore.store.collection import DB_FILE, INDEX_FILE, MANIFEST_FILE
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

T = TypeVar("T")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "r"
    root.mkdir()
    (root / "good.py").write_text("def good():\n    return 1\n")
    return root


def test_f2_undecodable_file_name_is_skipped_and_counted(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    # A name that is not UTF-8: Python hands it over with surrogate escapes.
    bad = os.path.join(os.fsencode(repo), b"bad\xffname.py")
    with open(bad, "wb") as fh:
        fh.write(b"def f():\n  return 2\n")
    bad_folder = os.path.join(os.fsencode(repo), b"pkg\xfe")
    os.mkdir(bad_folder)
    with open(os.path.join(bad_folder, b"inside.py"), "wb") as fh:
        fh.write(b"def g():\n  return 3\n")
    report = index_folder(Store(), repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    assert report.files_scanned == 1
    assert report.skipped["undecodable_name"] == 2
    assert Store().open("r").stats().files == 1


def test_f4_concurrent_atomic_writes_never_collide(tmp_path: Path) -> None:
    target = tmp_path / "collection.json"
    start = threading.Barrier(8)
    failures: list[BaseException] = []

    def write(i: int) -> None:
        start.wait()
        try:
            for _ in range(50):
                replace_atomically(target, (f"writer {i}".encode(),))
        except OSError as exc:
            failures.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert target.read_text().startswith("writer ")
    assert [p.name for p in tmp_path.iterdir()] == ["collection.json"]


def test_f4_concurrent_opens_repair_an_edited_manifest(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    manifest = store.root / "r" / MANIFEST_FILE
    expected = manifest.read_text()
    failures: list[BaseException] = []
    start = threading.Barrier(8)

    def open_it() -> None:
        start.wait()
        try:
            store.open("r").close()
        except OSError as exc:
            failures.append(exc)

    for _ in range(5):
        manifest.write_text(expected + " ")
        threads = [threading.Thread(target=open_it) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == [] and manifest.read_text() == expected


def corrupt_header(store: Store, name: str) -> None:
    with open(store.root / name / DB_FILE, "r+b") as fh:
        fh.write(b"\xde\xad\xbe\xef" * 4)


def test_f7_corrupt_database_is_one_line_naming_the_collection(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    corrupt_header(store, "r")
    with pytest.raises(CorruptCollectionError, match=r"'r'.*embedstore rm r"):
        store.open("r")
    result = CliRunner().invoke(cli_app, ["search", "x"])
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1, result.stderr
    assert "'r'" in lines[0] and "embedstore rm r" in lines[0]
    # and the advice works: rm removes the damaged collection
    assert CliRunner().invoke(cli_app, ["rm", "r"]).exit_code == 0
    assert store.names() == []


def test_f8_stale_temp_files_are_swept_when_writing(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    folder = store.root / "r"
    # What a kill between the temp-file write and its rename leaves behind.
    stale = [folder / f".{INDEX_FILE}.k1ll3d.tmp", folder / f".{MANIFEST_FILE}.k1ll3d.tmp"]
    for path in stale:
        path.write_bytes(b"x" * 4096)
    (repo / "more.py").write_text("def more():\n    return 3\n")
    index_folder(store, repo, IndexOptions(name="r"))
    assert not any(p.exists() for p in stale)
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_f12_failed_first_index_leaves_no_collection(
    repo: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store()

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("killed mid-run")

    monkeypatch.setattr(FakeEncoder, "encode", boom)
    with pytest.raises(RuntimeError):
        index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    assert store.names() == [] and not store.exists("r")
    monkeypatch.undo()
    report = index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    assert report.files_new == 1 and store.names() == ["r"]


def test_f12_concurrent_creation_says_being_created(
    repo: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store()
    inside = threading.Event()
    release = threading.Event()
    real_encode = FakeEncoder.encode

    def slow_encode(self: FakeEncoder, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        inside.set()
        release.wait(10)
        return real_encode(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(FakeEncoder, "encode", slow_encode)
    first = threading.Thread(
        target=index_folder, args=(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    )
    first.start()
    try:
        assert inside.wait(10)
        assert store.names() == []  # not visible before its first commit
        with pytest.raises(CollectionLockedError, match="being created"):
            index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    finally:
        release.set()
        first.join()
    assert store.names() == ["r"]


def damage_pages(store: Store, name: str) -> None:
    """Garbage over the second half of meta.sqlite's pages; its header and its schema's
    pages stay intact (the schema outgrows its first page as tables are added)."""
    path = store.root / name / DB_FILE
    with sqlite3.connect(path) as conn:
        schema = {row[0] for row in conn.execute(
            "SELECT pageno FROM dbstat WHERE name = 'sqlite_schema'")}
    conn.close()
    size = path.stat().st_size
    page = 4096
    with open(path, "r+b") as fh:
        for offset in range(max(page, (size // page // 2) * page), size, page):
            if offset // page + 1 not in schema:
                fh.seek(offset)
                fh.write(os.urandom(page))


def test_damaged_pages_are_the_one_line_corrupt_collection_error(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    """Issue 21, F10: "database disk image is malformed" met by a search was a traceback."""
    for i in range(60):
        (repo / f"m{i}.py").write_text(f"def answer_{i}():\n    return 'answer number {i}'\n")
    store = Store()
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    damage_pages(store, "r")
    store.open("r").close()  # the schema is intact: the damage is met by a query
    for args in (["search", "answer number 7"], ["search", "answer", "--mode", "lexical"],
                 ["info", "r"]):
        result = CliRunner().invoke(cli_app, args)
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.exit_code == 1 and len(lines) == 1, (args, result.stderr)
        assert "collection 'r' is damaged" in lines[0] and "embedstore rm r" in lines[0]
    collection = store.open("r")
    with pytest.raises(CorruptCollectionError):
        collection.conn.execute("SELECT * FROM units").fetchall()
    collection.close()


def test_a_name_ending_in_a_newline_is_refused(repo: Path, fake_encoder: FakeEncoder) -> None:
    """Issue 21, F13: "$" matches before a final newline, so "r\\n" passed the name check and
    the API listed a collection it could not GET or DELETE."""
    store = Store()
    with pytest.raises(UserInputError, match="invalid collection name"):
        index_folder(store, repo, IndexOptions(name="r\n", encoder=FAKE_SPEC))
    result = CliRunner().invoke(cli_app, ["index", str(repo), "--name", "r\n", "--json"])
    assert result.exit_code == 1 and "invalid collection name 'r\\n'" in result.stderr
    # One made by an older embedstore is not listed, so never half-served.
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    os.rename(store.root / "r", store.root / "r\n")
    assert store.names() == []


def test_a_folder_without_a_database_gets_one_message_from_every_command(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    """Issue 21, F14: `info` said "no collection named", `index` "exists already"."""
    store = Store()
    (store.root / "r").mkdir(parents=True)
    (store.root / "r" / "notes.txt").write_text("mine")
    lines = set()
    for args in (["info", "r"], ["search", "x", "--name", "r"], ["rm", "r"],
                 ["index", str(repo), "--name", "r", "--encoder", FAKE_SPEC, "--json"]):
        result = CliRunner().invoke(cli_app, args)
        errors = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.exit_code == 1 and len(errors) == 1, (args, result.stderr)
        lines.add(errors[0])
    assert len(lines) == 1 and "is not a collection (it has no meta.sqlite)" in lines.pop()
    assert sorted(p.name for p in (store.root / "r").iterdir()) == ["notes.txt"]


def test_contrived_damage_and_unwritable_stores_are_one_line(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    """Issue 21, F11 and F12: each of these was a traceback."""
    store = Store()
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    folder = store.root / "r"

    def one_line(*args: str) -> str:
        result = CliRunner().invoke(cli_app, list(args))
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        assert result.exit_code == 1 and len(lines) == 1, (args, result.stderr)
        return lines[0]

    # collection.json is only a mirror of the database: a folder in its place is no harm.
    (folder / MANIFEST_FILE).unlink()
    (folder / MANIFEST_FILE).mkdir()
    for args in (["info", "r"], ["search", "good"], ["index", str(repo)]):
        result = CliRunner().invoke(cli_app, [*args, "--json"])
        assert result.exit_code == 0, (args, result.stderr)
    # The lock is what keeps writers apart: without it nothing may be written.
    (folder / ".write.lock").unlink()
    (folder / ".write.lock").mkdir()
    assert "cannot take the write lock of collection 'r'" in one_line("index", str(repo),
                                                                      "--json")
    assert "cannot take the write lock" in one_line("rm", "r")
    assert CliRunner().invoke(cli_app, ["search", "good", "--json"]).exit_code == 0
    # A store that cannot be created.
    line = one_line("index", str(repo), "--store", "/proc/embedstore-store", "--json")
    assert "cannot create collection 'r' in the store /proc/embedstore-store" in line


def finishes(call: Callable[[], T], seconds: float = 60) -> T:
    """``call``'s result, failing (not hanging) the test if it blocks."""
    box: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            box.append(call())
        except BaseException as exc:  # handed to the test thread
            errors.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"still blocked after {seconds} s"
    if errors:
        raise errors[0]
    return box[0]


@pytest.mark.parametrize("odd", ["fifo", "device"])
def test_g10_an_index_file_that_is_no_regular_file_never_blocks(
    repo: Path, tmp_path: Path, fake_encoder: FakeEncoder, odd: str
) -> None:
    """Issue 30, G10: a FIFO in place of vectors.faiss made `search` hang."""
    def replace(path: Path) -> None:
        path.unlink(missing_ok=True)
        if odd == "fifo":
            os.mkfifo(path)
        else:
            path.symlink_to("/dev/zero")  # never ends

    store = Store()
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    for name in (INDEX_FILE, MANIFEST_FILE):
        replace(store.root / "r" / name)
    result = finishes(lambda: CliRunner().invoke(cli_app, ["search", "good", "--json"]))
    assert result.exit_code == 0 and '"symbol": "good"' in result.stdout, result.stderr
    # Both are derived from the database: rewritten as regular files.
    index_file = store.root / "r" / INDEX_FILE
    assert index_file.is_file() and not index_file.is_symlink()
    odd_file = tmp_path / "odd"
    replace(odd_file)
    with pytest.raises(VectorIndexError, match="odd is not a regular file"):
        finishes(lambda: read_index_file(odd_file))
    with pytest.raises(LexicalIndexError, match="odd is not a regular file"):
        finishes(lambda: read_segment(odd_file))


def test_g14_a_create_that_fails_on_a_full_disk_leaves_nothing(
    repo: Path, fake_encoder: FakeEncoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 30, G14: the half-built `.creating-another-*` folder stayed in the store."""
    store = Store()
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    real_connect = connection.connect

    def disk_full_while_creating(path: Path) -> connection.Connection:
        conn = real_connect(path)
        if path.parent.name.startswith(".creating-"):
            conn.execute("PRAGMA max_page_count = 1")  # SQLITE_FULL, as on a full disk
        return conn

    monkeypatch.setattr(connection, "connect", disk_full_while_creating)
    with pytest.raises(StorageError, match=r"'\.creating-another-"):
        index_folder(store, repo, IndexOptions(name="another", encoder=FAKE_SPEC))
    assert sorted(p.name for p in store.root.iterdir()) == ["r"]


def test_g14_plt_inspect_of_a_file_says_it_is_not_a_folder(tmp_path: Path) -> None:
    file = tmp_path / "model.safetensors"
    file.write_bytes(b"")
    result = CliRunner().invoke(cli_app, ["plt", "inspect", str(file)])
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1, result.stderr
    assert "is not a folder" in lines[0] and "config.json" in lines[0]


def test_g14_an_encoder_that_cannot_be_found_is_one_line(repo: Path) -> None:
    result = CliRunner().invoke(
        cli_app, ["index", str(repo), "--encoder", "no-such-org/no-such-encoder"]
    )
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 1 and len(lines) == 1, result.stderr
    assert "cannot load sentence-transformers model 'no-such-org/no-such-encoder'" in lines[0]
