"""`embedstore plot NAME [--out map.html]`: a 2-D map of a collection."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from embedstore.cli.common import StoreOption, cli_errors, err, open_store, out
from embedstore.errors import UserInputError
from embedstore.plot import DEFAULT_K, DEFAULT_LIMIT


@cli_errors
def plot(
    name: Annotated[str, typer.Argument(help="Collection name.")],
    out_file: Annotated[Path | None, typer.Option(
        "--out", "-o", help="Interactive HTML map to write (self-contained, works offline); "
        "without --out and --png: NAME-map.html in the current folder.",
    )] = None,
    method: Annotated[str, typer.Option(
        "--method", help="pca, tsne or umap (umap needs the `umap` extra).",
    )] = "pca",
    limit: Annotated[int, typer.Option(help="At most this many units, sampled.")] = DEFAULT_LIMIT,
    seed: Annotated[int, typer.Option(help="Seed of the sample and the projection.")] = 0,
    color_by: Annotated[str, typer.Option(
        "--color-by", help="Colour points by folder, language, kind or file (folder becomes "
        "file when every unit is in one folder).",
    )] = "folder",
    query: Annotated[list[str] | None, typer.Option(
        "--query", "-q", metavar="QUERY",
        help="Mark this query and draw lines to its top-k hits (repeatable).",
    )] = None,
    k: Annotated[int, typer.Option("-k", "--top", help="Hits per query.")] = DEFAULT_K,
    png: Annotated[Path | None, typer.Option(
        "--png", help="Also write a static PNG image (matplotlib).",
    )] = None,
    store: StoreOption = None,
) -> None:
    """Project a collection's units to 2-D and write an interactive HTML map and/or a PNG."""
    # Imported here: numpy and the store, which `embedstore --help` must not load (issue 9).
    from embedstore.plot.build import build_map
    from embedstore.plot.colors import check_color_by, resolve_color_by
    from embedstore.plot.projection import METHOD_NAMES
    from embedstore.store.store import check_name

    check_color_by(color_by)
    if out_file is None and png is None:
        # What a quick look wants: the interactive map, named so that maps of several
        # collections do not overwrite each other (a checked name holds no slash).
        out_file = Path(f"{check_name(name)}-map.html")
    targets = [path for path in (out_file, png) if path is not None]
    # Each file in the format its name says: HTML in map.png would open as a broken image.
    if out_file is not None and out_file.suffix.lower() not in (".html", ".htm"):
        raise typer.BadParameter(
            f"{str(out_file)!r} is not an .html file: --out writes an interactive HTML map; "
            "for an image use --png map.png", param_hint="'--out'",
        )
    if png is not None and png.suffix.lower() != ".png":
        raise typer.BadParameter(
            f"{str(png)!r} is not a .png file: --png writes a PNG image", param_hint="'--png'"
        )
    for path in targets:
        if not path.parent.is_dir():
            raise UserInputError(f"cannot write {path}: folder {path.parent} does not exist")
    collection = open_store(store).open(name)
    started = time.perf_counter()
    built = build_map(collection, method=method, limit=limit, seed=seed, queries=query or (),
                      k=k)
    found = built.map
    mapped = time.perf_counter()
    if found.method != method:
        err.print(f"[yellow]warning:[/yellow] {found.sampled} units are too few for "
                  f"{METHOD_NAMES[method]}: drawn with PCA", soft_wrap=True)
    color_by = resolve_color_by(found.points, color_by)
    if out_file is not None:
        from embedstore.plot.html import write_html  # plotly: only when writing HTML

        write_html(found, out_file, color_by)
    if png is not None:
        from embedstore.plot.png import write_png  # matplotlib: only when writing a PNG

        write_png(found, png, color_by)
    how = "read from the cache" if built.cached else "computed"
    out.print(f"Wrote {', '.join(map(str, targets))}: {found.summary} (map {how} in "
              f"{mapped - started:.2f} s, files written in {time.perf_counter() - mapped:.2f} s)",
              soft_wrap=True)
