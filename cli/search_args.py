"""Options `search` and `context` share: mode, filters, output format; their checks."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from embedstore.errors import UserInputError

if TYPE_CHECKING:
    from embedstore.retrieval.filters import SearchFilters
    from embedstore.store.collection import Collection

# A Literal, so that a mistyped mode is a usage error (exit 2) with the nearest one named.
Mode = Literal["hybrid", "dense", "lexical"]
# retrieval.search.MAX_K, not imported from there: `--help` must not load the retrieval layer.
MAX_K = 1000
ModeOption = Annotated[
    Mode,
    typer.Option(
        "--mode", "-m", metavar="MODE",
        help="hybrid (dense + BM25, fused), dense or lexical.",
    ),
]
IncludeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--include", metavar="GLOB",
        help="Only paths matching this .gitignore-style glob, written from the indexed "
             "folder or the current one (repeatable).",
    ),
]
ExcludeOption = Annotated[
    list[str] | None,
    typer.Option(
        "--exclude", metavar="GLOB", help="Leave out paths matching this glob (repeatable)."
    ),
]
LanguageOption = Annotated[
    list[str] | None,
    typer.Option(
        # -t as rg's --type: -l is --files-with-matches in `search`, as in rg.
        "--language", "-t", metavar="LANG",
        help="Only definitions in this language, e.g. python (repeatable).",
    ),
]
MinScoreOption = Annotated[
    float | None,
    typer.Option(
        "--min-score", metavar="COSINE", min=-1.0, max=1.0,
        help="Drop dense hits whose cosine is below this (-1..1); dense and hybrid modes only.",
    ),
]
NprobeOption = Annotated[
    int | None, typer.Option(min=1, metavar="N", help="IVF lists to visit (IVF-PQ indexes only).")
]
JsonAliasOption = Annotated[bool, typer.Option("--json", help="Same as --format json.")]
SearchFormat = Literal["text", "json", "jsonl", "vimgrep"]
# text and json print the context; the others lay out a completion model's whole prompt
# (embedstore.retrieval.prompt_formats.PROMPT_FORMATS, spelled out for Typer and mypy).
ContextFormat = Literal[
    "text", "json", "qwen", "starcoder2", "deepseek-coder", "codellama", "llama-infill"
]


def make_filters(
    collections: Sequence[Collection],
    mode: str,
    include: list[str] | None,
    exclude: list[str] | None,
    languages: list[str] | None,
    min_score: float | None,
) -> SearchFilters:
    """The filters of a search, refusing values that could only ever match nothing."""
    # Imported here: app.py loads this module for every command, `list` included.
    from embedstore.retrieval.filters import SearchFilters

    if min_score is not None and mode == "lexical":
        # Only the dense side scores by cosine; BM25 has no fixed scale to hold a floor to.
        raise typer.BadParameter(
            "it is a cosine floor for dense hits and --mode lexical has none; "
            "valid with --mode dense or hybrid",
            param_hint="'--min-score'",
        )
    if languages:
        _check_languages(collections, languages)
    try:
        # The current folder, as printed paths are relative to it: a glob may be too.
        return SearchFilters(
            include=tuple(include or ()), exclude=tuple(exclude or ()),
            languages=tuple(languages or ()), min_score=min_score, cwd=os.getcwd(),
        )
    except ValueError as exc:  # a malformed glob: a usage error like any bad option value
        raise typer.BadParameter(str(exc), param_hint="'--include' / '--exclude'") from None


def _check_languages(collections: Sequence[Collection], languages: list[str]) -> None:
    from embedstore.retrieval.filters import check_languages

    try:
        check_languages(collections, languages)
    except UserInputError as exc:  # a bad option value: a usage error
        raise typer.BadParameter(str(exc), param_hint="'--language'") from None


def output_format(fmt: str, as_json: bool) -> str:
    """--format, with --json as its older spelling of `--format json`."""
    if as_json and fmt not in ("text", "json"):
        raise typer.BadParameter(f"--json means --format json, not {fmt}", param_hint="'--json'")
    return "json" if as_json else fmt
