"""The store: a folder holding one folder per collection."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import platformdirs

from embedstore.errors import (
    CollectionExistsError,
    CollectionLockedError,
    CollectionNotFoundError,
    StorageError,
    UserInputError,
)
from embedstore.store import db
from embedstore.store.collection import DB_FILE, INCOMPLETE_FILE, Collection, write_lock
from embedstore.store.manifest import Manifest

# Always fullmatch: with match, "$" also matches before a final newline ("name\n").
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def default_home() -> Path:
    """$EMBEDSTORE_HOME, else the platform's user data folder."""
    env = os.environ.get("EMBEDSTORE_HOME")
    return Path(env).expanduser() if env else platformdirs.user_data_path("embedstore")


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise UserInputError(
            f"invalid collection name {name!r}: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def name_for_folder(folder: Path) -> str:
    """A valid collection name derived from a folder's name."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", folder.resolve().name).strip("-._")
    return cleaned[:64] or "default"


class Store:
    """Collections by name, under one root folder."""

    def __init__(self, root: Path | str | None = None) -> None:
        self.root = Path(root).expanduser() if root is not None else default_home()

    def names(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(
            p.name for p in self.root.iterdir() if _NAME.fullmatch(p.name) and _visible(p)
        )

    def exists(self, name: str) -> bool:
        return _visible(self.root / check_name(name))

    def open(self, name: str) -> Collection:
        if not self.exists(name):
            folder = self.root / name
            if _foreign(folder):
                raise CollectionNotFoundError(_not_a_collection(folder))
            known = ", ".join(self.names()) or "none yet"
            raise CollectionNotFoundError(
                f"no collection named {name!r} in {self.root} (collections: {known})"
            )
        collection = Collection(self.root / name)
        collection.mirror_manifest()
        return collection

    def create(self, name: str, manifest: Manifest) -> Collection:
        """A new collection, hidden from names/exists/open until ``mark_complete``.

        It appears under its name in one rename, marked incomplete, so that a
        first run that fails or is killed leaves no empty collection behind. The
        next create of that name takes the hidden one over (with the vectors it
        had parked), unless another process is creating it right now.
        """
        if self.exists(name):
            raise CollectionExistsError(f"collection {name!r} exists already")
        folder = self.root / name
        if _foreign(folder):
            raise CollectionExistsError(_not_a_collection(folder))
        if not (folder / DB_FILE).is_file():
            self._build_hidden(folder, manifest)
        collection = Collection(folder)
        try:
            with collection.writing():
                if self.exists(name):  # its creator finished while we got here
                    raise CollectionExistsError(f"collection {name!r} exists already")
                with db.transaction(collection.conn):
                    db.set_meta(collection.conn, "manifest", manifest.to_json())
        except CollectionLockedError:
            collection.close()
            raise CollectionLockedError(
                f"collection {name!r} is being created by another process; "
                "wait for it to finish"
            ) from None
        except CollectionExistsError:
            collection.close()
            raise
        collection.mirror_manifest()
        return collection

    def delete(self, name: str) -> None:
        """Remove a collection; refused while another process writes to it.

        The lock alone, not an open collection: one that is damaged, of an older
        format or hidden (see ``create``) must be deletable too.
        """
        folder = self.root / check_name(name)
        if not (folder / DB_FILE).is_file():
            self.open(name)  # raises CollectionNotFoundError, listing what exists
        with write_lock(folder):
            # Renamed first so that a crash mid-delete never leaves a half collection
            # that still looks valid.
            doomed = Path(tempfile.mkdtemp(dir=self.root, prefix=f".deleting-{name}-"))
            os.replace(folder, doomed)
        shutil.rmtree(doomed, ignore_errors=True)

    def _build_hidden(self, folder: Path, manifest: Manifest) -> None:
        """Build the folder aside, marked incomplete, then rename it into place."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(dir=self.root, prefix=f".creating-{folder.name}-"))
        except OSError as exc:  # read-only, under /proc, a file in the way...
            raise StorageError(
                f"cannot create collection {folder.name!r} in the store {self.root}: "
                f"{exc.strerror} ({exc.filename}); choose another with --store or "
                "$EMBEDSTORE_HOME"
            ) from exc
        try:
            conn = db.connect(tmp / DB_FILE)
            try:
                with db.transaction(conn):
                    db.set_meta(conn, "manifest", manifest.to_json())
            finally:
                conn.close()
            (tmp / INCOMPLETE_FILE).touch()
        except BaseException:
            # A full disk, say: nobody could ever take this half-built folder over.
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        try:
            os.replace(tmp, folder)
        except OSError:
            # Another process renamed its own into place first: take that one over
            # (unless what took the name is no collection).
            shutil.rmtree(tmp, ignore_errors=True)
            if _foreign(folder):
                raise CollectionExistsError(_not_a_collection(folder)) from None



def _visible(folder: Path) -> bool:
    return (folder / DB_FILE).is_file() and not (folder / INCOMPLETE_FILE).exists()


def _foreign(folder: Path) -> bool:
    """Something other than a collection holds the name: a folder without a database, a
    file. A hidden collection being created always has its database."""
    return (folder.exists() or folder.is_symlink()) and not (folder / DB_FILE).is_file()


def _not_a_collection(folder: Path) -> str:
    # One message for every command, so `info` and `index` never contradict each other.
    return (
        f"{folder} is in the store but is not a collection (it has no {DB_FILE}): "
        "move it out of the store, or use another name"
    )
