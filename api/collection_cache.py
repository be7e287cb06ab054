"""Open collections shared by concurrent requests, and their safe retirement."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

from embedstore.errors import CollectionLockedError, CollectionNotFoundError, EmbedstoreError
from embedstore.store.collection import Collection
from embedstore.store.store import Store

# How long a DELETE waits for the requests still using the collection.
DRAIN_SECONDS = 30.0
T = TypeVar("T")


@dataclass
class _Open:
    collection: Collection
    users: int = 0
    retired: bool = False


class CollectionCache:
    """One read-only Collection per name, lent to requests and closed only when unused.

    Writers (jobs, document upserts) open their own; readers notice a new
    database generation and swap in the new index only once it is complete.
    A delete lets the requests in flight finish first, and new requests for
    that name get 404 meanwhile: nobody ever reads from a closed database.
    """

    def __init__(self, store: Store, drain_seconds: float = DRAIN_SECONDS) -> None:
        self._store = store
        self._drain_seconds = drain_seconds
        self._open: dict[str, _Open] = {}
        self._deleting: set[str] = set()
        self._changed = threading.Condition()

    @contextmanager
    def lease(self, name: str) -> Iterator[Collection]:
        """The collection, kept open until the block ends (CollectionNotFoundError -> 404)."""
        with self._changed:
            if name in self._deleting:
                raise CollectionNotFoundError(f"collection {name!r} is being deleted")
            entry = self._open.get(name)
            if entry is None or not self._store.exists(name):
                # Gone or replaced behind our back (another process): drop the stale one.
                if entry is not None:
                    self._retire(self._open.pop(name))
                entry = _Open(self._store.open(name))
                self._open[name] = entry
            entry.users += 1
        try:
            yield entry.collection
        finally:
            with self._changed:
                entry.users -= 1
                if entry.retired and entry.users == 0:
                    entry.collection.close()
                self._changed.notify_all()

    def read_each(self, read: Callable[[Collection], T]) -> tuple[list[T], dict[str, str]]:
        """``read`` of every collection of the store, each leased meanwhile, and why the
        others cannot be read, by name (damaged, outdated, a full disk): one bad collection
        must not hide the rest. One deleted since the listing is left out."""
        found: list[T] = []
        unreadable: dict[str, str] = {}
        for name in self._store.names():
            try:
                with self.lease(name) as collection:
                    found.append(read(collection))
            except CollectionNotFoundError:
                continue
            except EmbedstoreError as exc:
                unreadable[name] = str(exc)
        return found, unreadable

    def delete(self, name: str) -> None:
        """Delete the collection once the requests using it are done."""
        with self._changed:
            if name in self._deleting:
                raise CollectionLockedError(f"collection {name!r} is being deleted already")
            self._deleting.add(name)
        try:
            self._drain(name)
            self._store.delete(name)
        finally:
            with self._changed:
                self._deleting.discard(name)

    def _drain(self, name: str) -> None:
        with self._changed:
            entry = self._open.get(name)
            if entry is None:
                return
            if not self._changed.wait_for(lambda: entry.users == 0, self._drain_seconds):
                raise CollectionLockedError(
                    f"collection {name!r} is still in use by {entry.users} requests; try again"
                )
            self._retire(self._open.pop(name))

    def _retire(self, entry: _Open) -> None:
        """Close now if unused, else when the last user is done (lock held)."""
        entry.retired = True
        if entry.users == 0:
            entry.collection.close()

    def close(self) -> None:
        with self._changed:
            for entry in self._open.values():
                self._retire(entry)
            self._open.clear()
