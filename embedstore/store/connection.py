"""SQLite connections whose failures name the collection and say what to do.

SQLite reports a damaged file or a full disk at whichever statement meets it,
in any module that reads or writes a collection. Translated here, where every
statement passes, each becomes one of embedstore's errors: a damaged
``meta.sqlite`` a ``CorruptCollectionError`` naming the collection and the fix,
a full disk or an I/O error a ``StorageError``. Other SQLite errors (a busy
database, a bad statement) are left as they are.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Concatenate, NoReturn, ParamSpec, TypeVar

from embedstore.errors import CorruptCollectionError, StorageError

# sqlite_errorname prefixes (extended codes such as SQLITE_IOERR_WRITE included).
_DAMAGED = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_STORAGE = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_PERM")

P = ParamSpec("P")
R = TypeVar("R")


def _translated(exc: sqlite3.Error, path: Path) -> Exception:
    """The error to raise for ``exc`` met on the collection database at ``path``."""
    code = getattr(exc, "sqlite_errorname", "") or ""
    name = path.parent.name
    if code.startswith(_DAMAGED):
        return CorruptCollectionError(
            f"collection {name!r} is damaged ({path.name}: {exc}): delete it with "
            f"`embedstore rm {name}` and index it again"
        )
    if code.startswith(_STORAGE):
        return StorageError(
            f"cannot read or write collection {name!r} ({exc}): check the free space and "
            f"the permissions of {path.parent}"
        )
    return exc


def _raise(exc: sqlite3.Error, path: Path) -> NoReturn:
    error = _translated(exc, path)
    if error is exc:
        raise exc
    raise error from exc


def connect(path: Path) -> Connection:
    """A connection in autocommit mode (transactions are explicit) that translates errors."""
    try:
        conn = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=30, factory=Connection
        )
    except sqlite3.Error as exc:  # SQLITE_CANTOPEN: a folder that cannot be written...
        _raise(exc, path)
    conn.path = path
    return conn


def _translating(method: Callable[Concatenate[sqlite3.Cursor, P], R]) -> Callable[
    Concatenate[Cursor, P], R
]:
    @functools.wraps(method)
    def wrapper(self: Cursor, *args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            _raise(exc, self.connection.path)

    return wrapper


class Cursor(sqlite3.Cursor):
    """Translates at every step: a damaged page may be met on any row of a scan."""

    connection: Connection

    # They return the cursor itself, which the stubs' Self says and the wrapper cannot.
    execute = _translating(sqlite3.Cursor.execute)  # type: ignore[assignment]
    executemany = _translating(sqlite3.Cursor.executemany)  # type: ignore[assignment]
    executescript = _translating(sqlite3.Cursor.executescript)
    # fetchone, fetchmany and fetchall step in C, past __next__: each is wrapped itself.
    fetchone = _translating(sqlite3.Cursor.fetchone)
    fetchmany = _translating(sqlite3.Cursor.fetchmany)
    fetchall = _translating(sqlite3.Cursor.fetchall)

    def __next__(self) -> Any:
        # Written out, not wrapped: it runs once per row of every scan.
        try:
            return _next_row(self)
        except sqlite3.Error as exc:
            _raise(exc, self.connection.path)


_next_row = sqlite3.Cursor.__next__


class Connection(sqlite3.Connection):
    """Its statements run on ``Cursor``s (``Connection.execute`` makes plain ones)."""

    path: Path

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return self.cursor(Cursor).execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> sqlite3.Cursor:
        return self.cursor(Cursor).executemany(sql, parameters)

    def executescript(self, script: str, /) -> sqlite3.Cursor:
        return self.cursor(Cursor).executescript(script)
