"""`embedstore list`, `info NAME`, `rm NAME`."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

import typer
from rich.table import Table

from embedstore.cli.common import JsonOption, StoreOption, cli_errors, open_store, out, print_json
from embedstore.errors import OutdatedCollectionError


@cli_errors
def list_collections(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """List the collections in the store."""
    the_store = open_store(store)
    rows: list[dict[str, object]] = []
    for name in the_store.names():
        try:
            stats = the_store.open(name).stats()
        except OutdatedCollectionError as exc:
            # One collection of an older format must not hide the others.
            rows.append({"name": name, "outdated": str(exc)})
            continue
        rows.append({
            "name": name, "files": stats.files, "units": stats.units, "chunks": stats.chunks,
            "encoder": stats.manifest.encoder, "index": stats.manifest.index.get("kind", ""),
            "disk_bytes": stats.disk_bytes,
        })
    if as_json:
        print_json({"store": str(the_store.root), "collections": rows})
        return
    if not rows:
        out.print(f"No collections in {the_store.root}.")
        return
    table = Table("name", "files", "units", "chunks", "encoder", "index", "size")
    for row in rows:
        if "outdated" in row:
            table.add_row(str(row["name"]), "-", "-", "-", "outdated: re-index with --rebuild",
                          "-", "-")
            continue
        table.add_row(
            str(row["name"]), f"{row['files']:,}", f"{row['units']:,}", f"{row['chunks']:,}",
            str(row["encoder"]), str(row["index"]), _size(int(str(row["disk_bytes"]))),
        )
    out.print(table)


@cli_errors
def info(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Show a collection's encoder, index and sizes."""
    stats = open_store(store).open(name).stats()
    data = {
        "name": stats.name, "files": stats.files, "units": stats.units, "chunks": stats.chunks,
        "disk_bytes": stats.disk_bytes, **asdict(stats.manifest),
    }
    if as_json:
        print_json(data)
        return
    for key, value in data.items():
        shown = _size(int(str(value))) if key == "disk_bytes" else value
        out.print(f"[bold]{key:>16}[/bold]  {shown}")


@cli_errors
def rm(
    name: Annotated[str, typer.Argument(help="Collection to delete.")],
    store: StoreOption = None,
) -> None:
    """Delete a collection and its files."""
    open_store(store).delete(name)
    out.print(f"Deleted collection {name}.")


def _size(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB"):
        if size < 1024:
            return f"{size:,.0f} {unit}" if unit == "B" else f"{size:,.1f} {unit}"
        size /= 1024
    return f"{size:,.1f} GiB"
