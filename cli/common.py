"""Pieces every command shares: the store option, output, error translation."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer
from rich.text import Text

from embedstore.cli.console import err
from embedstore.cli.console import out as out  # re-exported: every command prints through it
from embedstore.cli.nonempty import refuse_empty
from embedstore.errors import EmbedstoreError, UserInputError

if TYPE_CHECKING:
    from embedstore.retrieval.federation import Skipped
    from embedstore.store.collection import Collection
    from embedstore.store.store import Store

P = ParamSpec("P")
R = TypeVar("R")

# index and watch: whether vendored folders are indexed, kept by the collection.
IncludeVendoredOption = Annotated[
    bool | None,
    typer.Option(
        "--include-vendored/--skip-vendored",
        help="Index vendored folders too (vendor/, _vendor/, third_party/, node_modules/...), "
             "or skip them again [default: as the collection last did, else skip them].",
        show_default=False,
    ),
]
StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store",
        envvar="EMBEDSTORE_HOME",
        metavar="DIR",
        help="Store folder [default: $EMBEDSTORE_HOME, else the user data folder].",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]
NameOption = Annotated[
    str | None,
    typer.Option(
        "--name", "-n", metavar="NAME", callback=refuse_empty,
        help="Collection [default: the only one in the store].",
    ),
]


def open_store(path: Path | None) -> Store:
    # Imported here: `embedstore --help` must not load the store's modules (issue 9).
    from embedstore.store.store import Store

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


NamesOption = Annotated[
    list[str] | None,
    typer.Option(
        "--name", "-n", metavar="NAME", callback=refuse_empty,
        help="Collection to search; repeat for several [default: every collection].",
    ),
]


def open_collections(
    store: Path | None, names: list[str] | None
) -> tuple[list[Collection], list[Skipped]]:
    """The named collections (each once), or every collection of the store, that open; and
    those skipped (damaged; deleted meanwhile when all were asked for): see ``note_skipped``."""
    from embedstore.retrieval.federation import open_members  # lazy: --help stays fast

    the_store = open_store(store)
    chosen = list(dict.fromkeys(names)) if names else the_store.names()
    if not chosen:
        raise UserInputError("the store has no collection yet: run `embedstore index PATH` first")
    members, skipped = open_members(chosen, the_store.open, missing_ok=not names)
    return [m.collection for m in members], skipped


def note_skipped(skipped: list[Skipped]) -> None:
    """One line on stderr naming the collections an answer left out, and why."""
    if skipped:
        named = "; ".join(f"{s.collection!r} ({s.reason})" for s in skipped)
        err.print(f"note: skipped {len(skipped)} collection(s): {named}", markup=False,
                  soft_wrap=True)


def print_json(data: Any) -> None:
    # Plain print: Rich would wrap long lines and break the JSON.
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def print_error(message: str) -> None:
    """``error: message``, one line on stderr."""
    # As Text, never markup: a message may hold brackets ("pip install 'embedstore[umap]'",
    # a glob "\\[") that markup would take, or drop.
    err.print(Text.assemble(("error:", "red"), " ", message), soft_wrap=True)


def cli_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Turn the library's errors into one line on stderr and exit code 1."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except BrokenPipeError:
            # The reader has gone (`embedstore search ... | head -1`): stop quietly and
            # successfully, as grep and rg do, not with exit 1 under `set -o pipefail`.
            silence(sys.stdout)
            raise typer.Exit(code=0) from None
        except (EmbedstoreError, ValueError) as exc:
            print_error(str(exc))
            raise typer.Exit(code=1) from None
        except OSError as exc:
            # The system's own refusal (a folder that cannot be written...), not a bug.
            print_error(str(exc))
            raise typer.Exit(code=1) from None

    return wrapper


def silence(stream: IO[str]) -> None:
    """Point ``stream`` (whose reader has gone) at /dev/null: what is still buffered, and
    what is written later, must not fail again."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # a test runner's stand-in has no descriptor
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
