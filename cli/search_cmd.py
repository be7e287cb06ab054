"""`embedstore search QUERY`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from embedstore.cli.common import (
    NamesOption,
    StoreOption,
    cli_errors,
    err,
    note_skipped,
    open_collections,
    out,
    print_json,
)
from embedstore.cli.formats import (
    editor_path,
    print_files,
    print_jsonl,
    print_vimgrep,
    result_json,
)
from embedstore.cli.search_args import (
    MAX_K,
    ExcludeOption,
    IncludeOption,
    JsonAliasOption,
    LanguageOption,
    MinScoreOption,
    ModeOption,
    NprobeOption,
    SearchFormat,
    make_filters,
    output_format,
)
from embedstore.lexical import query_terms, term_spans

if TYPE_CHECKING:
    from rich.syntax import Syntax

    from embedstore.retrieval.search import SearchResult


@cli_errors
def search(
    query: Annotated[
        str, typer.Argument(metavar="QUERY", help="What you are looking for, in words or code.")
    ],
    names: NamesOption = None,
    k: Annotated[
        int, typer.Option("-k", "--top", metavar="K", min=1, max=MAX_K,
                          help="Number of results.")
    ] = 10,
    mode: ModeOption = "hybrid",
    include: IncludeOption = None,
    exclude: ExcludeOption = None,
    language: LanguageOption = None,
    min_score: MinScoreOption = None,
    nprobe: NprobeOption = None,
    store: StoreOption = None,
    fmt: Annotated[
        SearchFormat,
        typer.Option(
            "--format", "-f",
            help="text: each hit's location, score and code; json: one document; jsonl: one "
            "hit per line; vimgrep: path:line:1:text per hit, for an editor's quickfix list "
            "(paths from the current folder).",
        ),
    ] = "text",
    as_json: JsonAliasOption = False,
    files_only: Annotated[
        bool,
        typer.Option("-l", "--files-with-matches",
                     help="Print only the paths of files with a hit, one per file, best first."),
    ] = False,
) -> None:
    """Search collections; prints each definition's path:start-end, score and head.

    Without --name every collection of the store is searched; hits are merged by
    a score that compares across them (their encoders must match, except in
    lexical mode). Paths are printed from the current folder when the file is there.

    The score is what ranked a hit, by --mode. dense: the cosine similarity of
    the query's and the definition's embeddings (-1..1). lexical: its BM25
    (above 0, comparable only within one query). hybrid: w x cosine + (1 - w) x
    BM25 / the query's best BM25 (-1..1), w between 0.5 and 1 set per query from how
    peaked and how alike the two candidate lists are. A side that did not return a
    hit counts it at that side's lowest returned score, or at 0 when the side
    returned fewer than the max(k, 100) candidates it was asked for.
    """
    output = output_format(fmt, as_json)
    collections, skipped = open_collections(store, names)
    results: list[SearchResult] = []
    searchable = [c for c in collections if c.stats().chunks > 0]
    for empty in (c for c in collections if c not in searchable):
        # Said before the model loads. A program still gets a well-formed (empty)
        # answer on stdout, the reason on stderr.
        note = (f"Collection {empty.name!r} has 0 chunks: nothing to search. Index a "
                f"folder into it: embedstore index PATH --name {empty.name}")
        if output == "text" and not searchable:
            out.print(note, markup=False)
            note_skipped(skipped)
            return
        err.print(note, markup=False)
    if searchable:
        # Lazy: `search --help` never loads the retrieval layer.
        from embedstore.retrieval import search as search_module
        from embedstore.retrieval.federation import LocalMember, search_members

        filters = make_filters(searchable, mode, include, exclude, language, min_score)
        if len(searchable) == 1:
            results = search_module.search(
                searchable[0], query, k, mode=mode, filters=filters, nprobe=nprobe
            )
        else:
            members = [LocalMember(c) for c in searchable]
            results = search_members(members, query, k, mode=mode, filters=filters,
                                     skipped=skipped)
            skipped = results.skipped
    note_skipped(skipped)
    several = len(collections) > 1
    if files_only:
        print_files(results)
    elif output == "json":
        one = collections[0]
        print_json({
            "query": query, "mode": mode,
            "collection": None if several else one.name,
            "collections": [c.name for c in collections],
            "source_root": None if several else one.manifest.source_root,
            "results": [result_json(r) for r in results],
        })
    elif output == "jsonl":
        print_jsonl(results)
    elif output == "vimgrep":
        print_vimgrep(results)
    elif not results:
        out.print("No results.")
    else:
        # BM25's own terms, marked where they matched; only worth finding when colour shows them.
        terms = set(query_terms(query)) if mode == "lexical" and out.color_system else set()
        for rank, r in enumerate(results, start=1):
            _print_hit(rank, r, several, terms)


# Code blocks: the terminal's own 16 colours on its own background, so that they read on a
# light terminal as on a dark one (a theme's background would paint a slab behind each block).
SYNTAX_THEME = "ansi_dark"
TAB_SIZE = 4
MATCH_STYLE = "bold underline red"  # rg marks matches in bold red


def _print_hit(rank: int, r: SearchResult, several: bool, terms: set[str]) -> None:
    # Imported here: app.py loads this module for every command, `list` included.
    from rich.syntax import Syntax

    from embedstore.retrieval.preview import matched_lines, preview

    shown = preview(r)
    # Escaped: paths and names may hold brackets (`pages/[id].tsx`).
    # A section says where it sits by its headings, code by its name.
    name = r.heading_path or r.symbol
    symbol = f"  [dim]{escape(name)}[/dim]" if name else ""
    note = f"  [dim]{shown.note}[/dim]" if shown.note else ""  # "class, 12 methods"
    # A member whose class ranks after it says where it lives: "in class PreparedRequest:".
    owner = f"  [dim]in {escape(r.owner_header)}[/dim]" if r.owner_header else ""
    # A document's unit by its place in the file (page, slide, cell), not the lines of its text.
    where = f"{editor_path(r)}#{r.anchor}" if r.anchor else (
        f"{editor_path(r)}:{r.start_line}-{r.end_line}")
    source = f"  [dim]\\[{escape(r.collection)}][/dim]" if several else ""
    out.print(
        f"[bold]{rank}. {escape(where)}[/bold]  score {r.score:.3f} ({r.found_by})"
        f"{symbol}{note}{owner}{source}"
    )
    marked = set(matched_lines(r))
    for i, (first, last) in enumerate(shown.spans):
        if i and not shown.note:  # an outline's line numbers show its gaps
            out.print("[dim]…[/dim]")
        # The whole definition is highlighted and a range of it shown, so a span
        # that starts inside a string or block is still coloured right.
        code = Syntax(
            r.text, r.language, theme=SYNTAX_THEME, background_color="default",
            tab_size=TAB_SIZE, line_numbers=True, start_line=r.start_line,
            line_range=(first - r.start_line + 1, last - r.start_line + 1),
            highlight_lines=marked,
        )
        _mark_terms(code, r.text, terms, range(first - r.start_line, last - r.start_line + 1))
        out.print(code)
    if shown.hidden:
        out.print(f"[dim]… {shown.hidden} more lines[/dim]")


def _mark_terms(code: Syntax, text: str, terms: set[str], rows: range) -> None:
    """Style the query's terms where they occur in the shown ``rows`` (0-based) of ``text``."""
    if not terms:
        return
    lines = text.expandtabs(TAB_SIZE).split("\n")  # Syntax counts columns after expanding tabs
    for row in rows:
        for start, end in term_spans(lines[row], terms):
            code.stylize_range(MATCH_STYLE, (row + 1, start), (row + 1, end))
