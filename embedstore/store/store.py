"""The store: a folder holding one folder per collection."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import platformdirs

from embedstore.errors import CollectionExistsError, CollectionNotFoundError, UserInputError
from embedstore.store import db
from embedstore.store.collection import DB_FILE, Collection, write_lock
from embedstore.store.manifest import Manifest

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def default_home() -> Path:
    """$EMBEDSTORE_HOME, else the platform's user data folder."""
    env = os.environ.get("EMBEDSTORE_HOME")
    return Path(env).expanduser() if env else platformdirs.user_data_path("embedstore")


def check_name(name: str) -> str:
    if not _NAME.match(name):
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
            p.name for p in self.root.iterdir() if _NAME.match(p.name) and (p / DB_FILE).is_file()
        )

    def exists(self, name: str) -> bool:
        return (self.root / check_name(name) / DB_FILE).is_file()

    def open(self, name: str) -> Collection:
        if not self.exists(name):
            known = ", ".join(self.names()) or "none yet"
            raise CollectionNotFoundError(
                f"no collection named {name!r} in {self.root} (collections: {known})"
            )
        collection = Collection(self.root / name)
        collection.mirror_manifest()
        return collection

    def create(self, name: str, manifest: Manifest) -> Collection:
        """Create atomically: built in a temporary folder, then renamed into place."""
        if self.exists(name):
            raise CollectionExistsError(f"collection {name!r} exists already")
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.root / f".creating-{name}-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir()
        conn = db.connect(tmp / DB_FILE)
        with db.transaction(conn):
            db.set_meta(conn, "manifest", manifest.to_json())
        conn.close()
        os.replace(tmp, self.root / name)
        return self.open(name)

    def delete(self, name: str) -> None:
        """Remove a collection; refused while another process writes to it."""
        path = self.root / check_name(name)
        if not self.exists(name):
            raise CollectionNotFoundError(f"no collection named {name!r} in {self.root}")
        # The lock alone, not an open collection: one of an older format must be deletable.
        with write_lock(path):
            # Renamed first so that a crash mid-delete never leaves a half collection
            # that still looks valid.
            doomed = self.root / f".deleting-{name}-{os.getpid()}"
            os.replace(path, doomed)
        shutil.rmtree(doomed, ignore_errors=True)
