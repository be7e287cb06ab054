"""One write to a collection: its options, its report, and what every stage shares."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from embedstore.encoders.base import Encoder
from embedstore.progress import Progress
from embedstore.store.collection import Collection
from embedstore.store.manifest import Manifest


@dataclass(frozen=True)
class IndexOptions:
    name: str | None = None
    encoder: str | None = None  # None: the collection's own, or the default
    pooling: str | None = None  # None: the collection's own, or the model's recommended
    index_kind: str | None = None  # None: the collection's own, or "auto"
    rebuild: bool = False
    batch_size: int = 16  # rows of the longest text per batch (encoders.base.budget_batches)
    embed_header: bool | None = None  # None: the collection's own, or True
    precision: str | None = None  # None: $EMBEDSTORE_PRECISION, else auto (see encoders.precision)
    ray: str | None = None  # None: encode here; "local" or HOST:PORT: on Ray (ray_encoder)
    include_vendored: bool | None = None  # None: the collection's own choice, or False


@dataclass
class IndexReport:
    collection: str
    files_scanned: int = 0
    files_new: int = 0
    files_changed: int = 0
    files_deleted: int = 0
    files_unchanged: int = 0
    units_added: int = 0
    units_removed: int = 0
    chunks_encoded: int = 0
    chunks_reused: int = 0
    chunks_total: int = 0
    units_total: int = 0
    index_kind: str = ""
    # Paths the scan passed over, by reason (sources.SKIP_REASONS): {"binary": 96, ...}.
    skipped: dict[str, int] = field(default_factory=dict)
    # Folders the scan left out whole by a rule (sources.NAMED_SKIPS): {"pip/_vendor/": reason}.
    skipped_folders: dict[str, str] = field(default_factory=dict)
    # Files read but left out because chunking them failed: {rel_path: why}.
    unchunkable: dict[str, str] = field(default_factory=dict)
    # Documents their reader could not read: {"a.pdf": "encrypted"}.
    unreadable_documents: dict[str, str] = field(default_factory=dict)
    # Pages of the PDFs read that had no text (scanned images): no unit.
    pages_without_text: int = 0
    # Wall seconds of each stage, in the order they ran; together they make the run's wall
    # time but for the bookkeeping in between (see indexer.index_folder).
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def nothing_changed(self) -> bool:
        return not (self.files_new or self.files_changed or self.files_deleted)

    def left_out(self) -> list[str]:
        """A line for each kind of thing left out that a user could not guess from the
        counts: the folders skipped by a rule and the files that could not be chunked, by
        name."""
        lines = []
        if self.skipped_folders:
            folders = [f"{path} ({why})" for path, why in self.skipped_folders.items()]
            keep = "; --include-vendored keeps vendored ones" if any(
                why == "vendored" for why in self.skipped_folders.values()
            ) else ""
            lines.append(f"skipped folders: {named(folders)}{keep}")
        if self.unchunkable:
            files = [f"{path} ({why})" for path, why in self.unchunkable.items()]
            lines.append(f"could not chunk {len(files):,} file(s), left out: {named(files)}")
        lines.extend(self._unreadable_lines())
        if self.pages_without_text:
            lines.append(f"{self.pages_without_text:,} PDF page(s) without text (scanned?): "
                         "not indexed")
        return lines

    def _unreadable_lines(self) -> list[str]:
        """``skipped 2 PDFs: encrypted (a.pdf, b.pdf)``, one line per format and reason."""
        groups: dict[tuple[str, str], list[str]] = {}
        for path, why in self.unreadable_documents.items():
            kind = path.rpartition(".")[2].upper()
            groups.setdefault((kind, why), []).append(path)
        return [f"skipped {len(paths):,} {kind}{'s' if len(paths) > 1 else ''}: {why} "
                f"({named(paths)})" for (kind, why), paths in sorted(groups.items())]


# How many things a summary line names before "and N more".
NAMED_AT_MOST = 10


def named(things: list[str]) -> str:
    """``a, b, c``, or the first NAMED_AT_MOST of them ``and N more``."""
    shown = ", ".join(things[:NAMED_AT_MOST])
    rest = len(things) - NAMED_AT_MOST
    return f"{shown} and {rest:,} more" if rest > 0 else shown


@dataclass
class Run:
    """What the stages of one write share: where it writes, with what, and its report."""

    collection: Collection
    manifest: Manifest  # the manifest this run commits
    encoder: Encoder
    opts: IndexOptions
    ui: Progress
    report: IndexReport = field(init=False)

    def __post_init__(self) -> None:
        self.report = IndexReport(collection=self.collection.name)

    @contextmanager
    def stage(self, name: str, total: int | None) -> Iterator[None]:
        with self.timed(name):
            self.ui.start(name, total)
            yield
            self.ui.finish(name)

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Count the block's wall time in ``report.seconds[name]`` (no progress shown)."""
        began = time.perf_counter()
        yield
        self.report.seconds[name] = round(time.perf_counter() - began, 3)
