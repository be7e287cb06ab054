"""`embedstore list`, `info NAME`, `rm NAME`."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import asdict
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.text import Text

from embedstore.cli.common import (
    JsonOption,
    StoreOption,
    cli_errors,
    open_store,
    out,
    print_json,
)
from embedstore.cli.console import err
from embedstore.errors import EmbedstoreError, OutdatedCollectionError

if TYPE_CHECKING:
    from embedstore.ingest.freshness import Freshness


@cli_errors
def list_collections(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """List the collections in the store."""
    # Imported here, as in `info`: the store and numpy, which `--help` must not load (issue 9).
    from embedstore.ingest import freshness
    the_store = open_store(store)
    rows: list[dict[str, object]] = []
    fresh: dict[str, Freshness] = {}
    for name in the_store.names():
        try:
            collection = the_store.open(name)
            stats = collection.stats()
            fresh[name] = freshness.check(collection)
        except OutdatedCollectionError as exc:
            # One collection of an older format must not hide the others,
            rows.append({"name": name, "outdated": str(exc)})
            continue
        except EmbedstoreError as exc:
            # nor one that is damaged or cannot be read (a full disk).
            rows.append({"name": name, "unreadable": str(exc)})
            continue
        rows.append({
            "name": name, "files": stats.files, "units": stats.units, "chunks": stats.chunks,
            "encoder": stats.manifest.encoder, "index": stats.manifest.index.get("kind", ""),
            "disk_bytes": stats.disk_bytes, "freshness": fresh[name].to_dict(),
        })
    if as_json:
        print_json({"store": str(the_store.root), "collections": rows})
        return
    if not rows:
        out.print(f"No collections in {the_store.root}.", markup=False)
        return
    cells = [_list_cells(row, fresh) for row in rows]
    if not out.is_terminal:
        _print_columns([list(LIST_COLUMNS), *cells])
        return
    _print_table(cells)


LIST_COLUMNS = ("name", "files", "units", "chunks", "encoder", "index", "size", "indexed", "stale")
# On a terminal, what fits 80 columns whole: `info NAME` has the units, chunks, the index
# kind and the encoder's full id. Only a long name or encoder wraps (folds), nothing is cut.
TERMINAL_COLUMNS = ("name", "files", "encoder", "size", "indexed", "stale")
_FOLDED = ("name", "encoder")


def _print_table(cells: list[list[str]]) -> None:
    from rich.table import Table

    table = Table(box=None, pad_edge=False, header_style="bold")
    for column in TERMINAL_COLUMNS:
        folds = column in _FOLDED
        table.add_column(column, overflow="fold" if folds else "ellipsis", no_wrap=not folds,
                         justify="right" if column in ("files", "size") else "left")
    wanted = [LIST_COLUMNS.index(column) for column in TERMINAL_COLUMNS]
    encoder = TERMINAL_COLUMNS.index("encoder")
    for line in cells:
        shown = [line[i] for i in wanted]
        shown[encoder] = _short_encoder(shown[encoder])
        shown[-1] = shown[-1].replace(" files)", ")").replace(" file)", ")")  # "yes (3)"
        # Escaped: an OS error's message holds brackets ("[Errno 28]").
        table.add_row(*map(escape, shown))
    out.print(table)


def _short_encoder(encoder: str) -> str:
    """``minilm-l6-code`` for ``embedstore/minilm-l6-code@7bcacce6``: the model's own name,
    without its hub namespace or adapter digest (a local folder: its last part)."""
    if ": " in encoder:  # "outdated: ..." or "unreadable: ...", said whole
        return encoder
    return encoder.rstrip("/").rpartition("/")[2].partition("@")[0]


def _list_cells(row: dict[str, object], fresh: dict[str, Freshness]) -> list[str]:
    """One collection's cells under LIST_COLUMNS."""
    name = str(row["name"])
    if "outdated" in row:
        return [name, "-", "-", "-", "outdated: re-index with --rebuild", "-", "-", "-", "-"]
    if "unreadable" in row:
        return [name, "-", "-", "-", f"unreadable: {row['unreadable']}", "-", "-", "-", "-"]
    return [
        name, f"{row['files']:,}", f"{row['units']:,}", f"{row['chunks']:,}",
        str(row["encoder"]), str(row["index"]), _size(int(str(row["disk_bytes"]))),
        _local_time(fresh[name]), _stale_text(fresh[name], short=True),
    ]


def _print_columns(lines: list[list[str]]) -> None:
    """Left-aligned columns two spaces apart, no box: what `awk`, `sort` and `column` read."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    for line in lines:
        text = "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True))
        out.print(text.rstrip(), markup=False)


@cli_errors
def info(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show a collection's encoder, index, sizes and whether its folder changed since."""
    from embedstore.encoders.onnx_model import has_export
    from embedstore.ingest import freshness
    from embedstore.store.lexical_index import segment_state

    the_store = open_store(store)
    collection = the_store.open(name)
    stats = collection.stats()
    fresh = freshness.check(collection)
    manifest = stats.manifest
    exported = has_export(the_store.root, manifest.encoder, manifest.pooling)
    data = {
        "name": stats.name, "files": stats.files, "units": stats.units, "chunks": stats.chunks,
        "disk_bytes": stats.disk_bytes, **asdict(manifest),
        # Queries encode through the model's ONNX export (no torch) once the store has one.
        "query_encoder": "onnx" if exported else "torch",
        # Large collections rank BM25 from lexical.bm25 (FTS5's scores, without its per-row cost).
        "lexical_index": "bm25-segment" if segment_state(collection.conn) else "fts5",
    }
    if as_json:
        print_json({**data, "freshness": fresh.to_dict()})
        return
    data["disk_bytes"] = _size(stats.disk_bytes)
    data.update(indexed_at=_local_time(fresh), git_head=fresh.git_head,
                stale=_stale_text(fresh, short=False))
    for key, value in _flat(data):
        # As Text, never markup: a path may hold brackets.
        out.print(Text.assemble((f"{key}:", "bold"), " ", _plain(value)))


@cli_errors
def rm(
    name: Annotated[str, typer.Argument(help="Collection to delete.")],
    store: StoreOption = None,
    yes: Annotated[bool, typer.Option(
        "--yes", "-y", help="Do not ask first (it asks only when stdin is a terminal).",
    )] = False,
) -> None:
    """Delete a collection and its files; asks first on a terminal."""
    the_store = open_store(store)
    # A script (stdin not a terminal) is not asked: it could not answer, and `rm` has
    # deleted without asking since 0.1. A name not in the store fails below, unasked.
    asked = not yes and sys.stdin.isatty() and name in the_store.names()
    if asked and not typer.confirm(f"Delete collection {name!r} from {the_store.root}?",
                                   err=True):
        err.print("Not deleted.", markup=False)
        raise typer.Exit(code=1)
    the_store.delete(name)
    out.print(f"Deleted collection {name}.", markup=False)


def _local_time(fresh: Freshness) -> str:
    """When the collection was last indexed, on the local clock, to the minute."""
    if fresh.indexed_at is None:
        return "-"
    return datetime.fromtimestamp(fresh.indexed_at).strftime("%Y-%m-%d %H:%M")


def _stale_text(fresh: Freshness, *, short: bool) -> str:
    """"no", "yes (3 files)", or why it cannot be told ("?" in a table)."""
    if fresh.stale is None:
        return "?" if short else f"unknown: {fresh.unknown}"
    if not fresh.stale:
        return "no"
    if short:
        return f"yes ({fresh.changed_files} file{'' if fresh.changed_files == 1 else 's'})"
    return (
        f"yes: {fresh.added} added, {fresh.removed} removed, {fresh.modified} modified since "
        "(run `embedstore index` again, or keep it fresh with `embedstore watch`)"
    )


def _flat(data: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, object]]:
    """``key: value`` pairs, a nested mapping's as ``key.sub``: `grep '^index.kind:'` finds it."""
    for key, value in data.items():
        if isinstance(value, dict):
            yield from _flat(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


def _plain(value: object) -> str:
    """A value as a person writes it: no quotes, None as -, booleans as yes and no."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list | tuple):
        return ", ".join(map(_plain, value))
    return str(value)


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB"):
        if size < 1024:
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    return f"{size:,.1f} GiB"
