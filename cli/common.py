"""Pieces every command shares: the store option, output, error translation."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from embedstore.errors import EmbedstoreError, UserInputError
from embedstore.filters import SearchFilters
from embedstore.store.collection import Collection
from embedstore.store.store import Store

P = ParamSpec("P")
R = TypeVar("R")

StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store",
        envvar="EMBEDSTORE_HOME",
        help="Store folder [default: $EMBEDSTORE_HOME, else the user data folder].",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]
NameOption = Annotated[
    str | None,
    typer.Option("--name", "-n", help="Collection [default: the only one in the store]."),
]
ModeOption = Annotated[
    str, typer.Option("--mode", "-m", help="hybrid (dense + BM25, fused), dense or lexical.")
]
IncludeOption = Annotated[
    list[str] | None,
    typer.Option("--include", help="Only paths matching this .gitignore-style glob (repeatable)."),
]
ExcludeOption = Annotated[
    list[str] | None,
    typer.Option("--exclude", help="Leave out paths matching this glob (repeatable)."),
]
LanguageOption = Annotated[
    list[str] | None,
    typer.Option("--language", "-l", help="Only chunks in this language (repeatable)."),
]
MinScoreOption = Annotated[
    float | None, typer.Option("--min-score", help="Drop dense hits below this cosine.")
]
NprobeOption = Annotated[
    int | None, typer.Option(min=1, help="IVF lists to visit (IVF-PQ indexes only).")
]

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def open_store(path: Path | None) -> Store:
    return Store(path)


def open_collection(store: Path | None, name: str | None) -> Collection:
    """The named collection, or the store's only one when no name is given."""
    the_store = open_store(store)
    if name is None:
        names = the_store.names()
        if not names:
            raise UserInputError(
                "the store has no collection yet: run `embedstore index PATH` first"
            )
        if len(names) > 1:
            raise UserInputError(
                f"several collections exist ({', '.join(names)}): choose one with --name"
            )
        name = names[0]
    return the_store.open(name)


def make_filters(
    include: list[str] | None,
    exclude: list[str] | None,
    languages: list[str] | None,
    min_score: float | None,
) -> SearchFilters:
    return SearchFilters(
        include=tuple(include or ()), exclude=tuple(exclude or ()),
        languages=tuple(languages or ()), min_score=min_score,
    )


def print_json(data: Any) -> None:
    # Plain print: Rich would wrap long lines and break the JSON.
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def cli_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn the library's errors into one line on stderr and exit code 1."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except (EmbedstoreError, ValueError) as exc:
            # Escaped: a message may hold brackets ("pip install 'embedstore[umap]'").
            err.print(f"[red]error:[/red] {escape(str(exc))}", soft_wrap=True)
            raise typer.Exit(code=1) from None

    return wrapper
