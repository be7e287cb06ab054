"""Keep a collection in step with its folder while files change (`embedstore watch`,
`serve --watch`).

Once the file watcher runs, the folder is indexed, then again after each burst of
changes (debounced). Each run is ``index_folder``, which re-reads and hashes the
files but encodes only chunks it has never seen, so an edit costs the encoding of
the edited definitions. A burst is first checked with ``freshness.check`` (stat
calls only): events that leave every indexed file as it was, such as writes
under a git-ignored build folder, cost no run at all. The writer lock is taken by
each run and released with it, never held while waiting for changes; a run that
finds another writer at work is retried shortly after.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from watchfiles import DefaultFilter, awatch

from embedstore.errors import CollectionLockedError, EmbedstoreError, UserInputError
from embedstore.ingest import freshness
from embedstore.ingest.indexer import IndexOptions, IndexReport, index_folder
from embedstore.store.store import Store, name_for_folder

# Quiet time that ends a burst of changes: an editor's save, a `git checkout`.
DEBOUNCE_MS = 400
# How often an idle watcher wakes up: to retry a run that found the collection
# locked, and to make the first run once the watcher is known to be running.
TICK_MS = 1000

ReportCallback = Callable[[IndexReport], None]
ErrorCallback = Callable[[EmbedstoreError], None]


async def watch_folder(
    store: Store,
    root: Path,
    options: IndexOptions | None = None,
    *,
    on_report: ReportCallback | None = None,
    on_error: ErrorCallback | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    stop_event: asyncio.Event | None = None,
) -> None:
    """Index ``root`` into its collection now and after every change, until cancelled
    or ``stop_event`` is set.

    ``on_report`` gets the report of each run; ``on_error`` each error of a run
    (the watch goes on: the next change may fix it). A locked collection is not
    an error: the run is retried every ``TICK_MS``.
    """
    root = Path(root).resolve()
    opts = options or IndexOptions()
    opts = replace(opts, name=opts.name or name_for_folder(root))
    # The store may live inside the folder: its own writes must not trigger runs.
    changes_filter = DefaultFilter(ignore_paths=[str(store.root.resolve())])
    pending = True  # the first run: made on the first wake-up, once events are caught
    async for changes in awatch(
        root, watch_filter=changes_filter, debounce=debounce_ms, rust_timeout=TICK_MS,
        yield_on_timeout=True, stop_event=stop_event,
    ):
        touched = _relative(root, (path for _, path in changes))
        if not (changes or pending):
            continue
        try:
            report = await asyncio.to_thread(_update, store, root, opts, touched, force=pending)
        except CollectionLockedError:
            pending = True  # another writer is busy: retry on the next tick
            continue
        except EmbedstoreError as exc:
            pending = False
            if on_error is not None:
                on_error(exc)
            continue
        pending = False
        if report is not None and on_report is not None:
            on_report(report)


def describe(report: IndexReport) -> str:
    """One line about a run: what changed and what it cost."""
    seconds = sum(report.seconds.values())
    if report.nothing_changed:
        return f"{report.collection}: no change ({report.files_scanned:,} files checked)"
    return "; ".join([
        f"{report.collection}: {report.files_changed} changed, {report.files_new} new, "
        f"{report.files_deleted} deleted; {report.chunks_encoded} chunks encoded, "
        f"{report.chunks_reused} reused ({seconds:.1f} s)",
        *report.left_out(),
    ])


def _update(
    store: Store, root: Path, opts: IndexOptions, touched: set[str], *, force: bool
) -> IndexReport | None:
    """A run of ``index_folder``, unless the files it would look at are as recorded."""
    if not force and not _worth_a_run(store, root, opts, touched):
        return None
    return index_folder(store, root, opts)


def _worth_a_run(store: Store, root: Path, opts: IndexOptions, touched: set[str]) -> bool:
    name = opts.name or name_for_folder(root)
    if not store.exists(name):
        return True
    collection = store.open(name)
    try:
        return freshness.check(collection, touched).stale is not False
    finally:
        collection.close()


def _relative(root: Path, paths: Iterable[str]) -> set[str]:
    """The POSIX paths relative to ``root`` of those under it."""
    found = set()
    for path in paths:
        try:
            found.add(Path(path).relative_to(root).as_posix())
        except ValueError:
            continue
    return found


def watchable(root: Path) -> Path:
    """``root`` resolved, if it is a folder that can be watched."""
    if not Path(root).is_dir():
        raise UserInputError(f"{root} is not a folder: give a folder to watch")
    return Path(root).resolve()
