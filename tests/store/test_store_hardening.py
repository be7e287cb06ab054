"""The store under abuse: odd file names, racing writers, damaged files, killed runs."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.atomic_files import replace_atomically
from embedstore.cli.app import app as cli_app
from embedstore.errors import CollectionLockedError, CorruptCollectionError
from embedstore.indexing import IndexOptions, index_folder
from embedstore.store.collection import DB_FILE, INDEX_FILE, MANIFEST_FILE
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder


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
    assert "undecodable name 2" in report.skipped
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
