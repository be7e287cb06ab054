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

from embedstore.errors import EmbedstoreError
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

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


def open_store(path: Path | None) -> Store:
    return Store(path)


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
            err.print(f"[red]error:[/red] {exc}", soft_wrap=True)
            raise typer.Exit(code=1) from None

    return wrapper
