"""`embedstore context QUERY` or `context --at PATH:LINE[:COLUMN]`: a prompt-ready context.

With QUERY, the definitions that answer a question in words; with --at (or
--code), what the code at a cursor needs from other files (code-at-cursor).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from embedstore.cli.common import (
    NamesOption,
    StoreOption,
    cli_errors,
    note_skipped,
    open_collections,
    print_json,
)
from embedstore.cli.cursor import cursor_code, parse_at
from embedstore.cli.search_args import (
    ContextFormat,
    ExcludeOption,
    IncludeOption,
    JsonAliasOption,
    LanguageOption,
    ModeOption,
    make_filters,
    output_format,
)
from embedstore.errors import UserInputError

if TYPE_CHECKING:
    from embedstore.retrieval.context import RagContext
    from embedstore.store.collection import Collection


@cli_errors
def context(
    query: Annotated[
        str | None,
        typer.Argument(metavar="[QUERY]", help="The question or task the context is for."),
    ] = None,
    at: Annotated[
        str | None,
        typer.Option(
            "--at", metavar="PATH:LINE[:COLUMN]",
            help="Code-at-cursor: the file on disk, the cursor at the start of LINE, or "
                 "before its COLUMNth character (from 1), as an editor has it mid-line.",
        ),
    ] = None,
    code: Annotated[
        str | None,
        typer.Option(
            "--code", metavar="FILE|-",
            help="Code-at-cursor: the text before the cursor, from a file or stdin (-).",
        ),
    ] = None,
    path: Annotated[
        str | None,
        typer.Option(
            "--path", metavar="PATH",
            help="With --code: the edited file's path in the collection (kept out).",
        ),
    ] = None,
    max_tokens: Annotated[
        int,
        typer.Option("--max-tokens", min=1, metavar="N", help="Token budget."),
    ] = 2000,
    tokenizer: Annotated[
        str | None,
        typer.Option(
            "--tokenizer", metavar="NAME|DIR",
            help="What the budget counts: a tiktoken encoding (cl100k_base) or a Hugging Face "
            "tokenizer folder [default: the encoder's tokenizer].",
        ),
    ] = None,
    names: NamesOption = None,
    mode: ModeOption = "hybrid",
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    language: LanguageOption = None,
    store: StoreOption = None,
    fmt: Annotated[
        ContextFormat,
        typer.Option(
            "--format", "-f",
            help="text: the context itself, ready for a prompt; json: it with each block's "
            "path and line ranges; with --at or --code, a model's whole fill-in-the-middle "
            "prompt: qwen, starcoder2, deepseek-coder, codellama, or llama-infill (the JSON "
            "body of llama.cpp's /infill).",
        ),
    ] = "text",
    as_json: JsonAliasOption = False,
) -> None:
    """Print the best definitions packed into a token budget, each under a path:lines header.

    Give a QUERY in words, or the code at a cursor with --at PATH:LINE[:COLUMN] (or --code).
    """
    output = output_format(fmt, as_json)
    if sum(x is not None for x in (query, at, code)) != 1:
        raise typer.BadParameter("give exactly one of QUERY, --at or --code")
    if path is not None and code is None:
        raise typer.BadParameter("--path goes with --code", param_hint="'--path'")
    if output not in ("text", "json") and query is not None:
        raise typer.BadParameter(
            f"{output} lays out code at a cursor: use it with --at or --code",
            param_hint="'--format'",
        )
    cursor = parse_at(at) if at is not None else None  # before any collection opens
    collections, skipped = open_collections(store, names)
    filters = make_filters(collections, mode, include, exclude, language, None)
    # Lazy: `context --help` never loads the retrieval layer.
    from embedstore.retrieval.code_context import context_for_code
    from embedstore.retrieval.context import context, encoder_prompt_counter
    from embedstore.retrieval.federation import LocalMember, context_members
    from embedstore.retrieval.tokenizers import load_tokenizer

    answered_by = collections[0].name if len(collections) == 1 else None
    count = load_tokenizer(tokenizer) if tokenizer else encoder_prompt_counter(collections[0])
    packed: RagContext
    if query is not None and len(collections) > 1:
        packed = context_members([LocalMember(c) for c in collections], query, max_tokens, count,
                                 mode=mode, filters=filters, skipped=skipped)
        skipped = packed.skipped
    elif query is not None:
        packed = context(
            collections[0], query, max_tokens, mode=mode, filters=filters, count_tokens=count
        )
    else:
        collection = collection_for(collections, cursor.file if cursor else None)
        answered_by = collection.name
        root = collection.manifest.source_root
        before, after, rel_path = cursor_code(cursor, code, path, root)
        packed = context_for_code(
            collection, before, code_after=after, path=rel_path, max_tokens=max_tokens,
            tokenizer=tokenizer, filters=filters.for_root(root),
        )
        if output not in ("text", "json"):
            print_prompt(packed, output, before, after or "", rel_path or "", collection.name)
            return
    note_skipped(skipped)
    if output == "json":
        print_json({
            "query": query or "", "collection": answered_by,
            "collections": [c.name for c in collections], "tokens": packed.tokens,
            "max_tokens": packed.max_tokens, "text": packed.text,
            "blocks": [
                {"path": b.path, "start_line": b.start_line, "end_line": b.end_line,
                 "ranges": b.ranges}
                for b in packed.blocks
            ],
        })
        return
    sys.stdout.write(packed.text + "\n")


def print_prompt(
    packed: RagContext, prompt_format: str, before: str, after: str, path: str, repo: str
) -> None:
    """The whole prompt, exactly: no newline after it, since the model continues from there."""
    from embedstore.retrieval.prompt_formats import layout_prompt

    prompt = layout_prompt(
        packed, prompt_format, code=before, code_after=after, path=path, repo=repo
    )
    if isinstance(prompt, dict):
        print_json(prompt)
    else:
        sys.stdout.write(prompt)


def collection_for(collections: list[Collection], file: Path | None) -> Collection:
    """The collection the code at a cursor belongs to: the one whose folder holds ``file``,
    or the only one."""
    if file is not None:
        resolved = file.resolve()
        for c in collections:
            root = c.manifest.source_root
            if root is not None and resolved.is_relative_to(root):
                return c
    if len(collections) == 1:
        return collections[0]
    raise UserInputError(
        f"several collections exist ({', '.join(c.name for c in collections)}) and none holds "
        "the file: choose one with --name"
    )
