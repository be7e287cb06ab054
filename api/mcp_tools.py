"""The MCP tools: search, context, context_for_code and list_collections over one store.

Each docstring is the description an agent reads when it chooses a tool; the
``Field`` descriptions are those of the arguments.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Annotated, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field, Strict

from embedstore.api.collection_cache import CollectionCache
from embedstore.api.json_integer import JsonInteger
from embedstore.api.limits import check_query_length
from embedstore.api.mcp_cursor import read_cursor
from embedstore.api.mcp_replies import (
    CollectionsOutput,
    ContextBlockOutput,
    ContextOutput,
    IndexStatus,
    SearchOutput,
    fit_search,
    skipped_lines,
    skipped_out,
    status_line,
)
from embedstore.api.warmup import Warmup
from embedstore.ingest import freshness
from embedstore.retrieval.code_context import MAX_CODE_CHARS, context_for_code
from embedstore.retrieval.context import (
    CONTEXT_CANDIDATES,
    ContextBlock,
    RagContext,
    encoder_prompt_counter,
    pack_context,
    render,
)
from embedstore.retrieval.federation import LocalMember, Skipped, open_members, search_members
from embedstore.retrieval.filters import SearchFilters, check_languages
from embedstore.retrieval.prompt_formats import layout_prompt
from embedstore.store.collection import Collection
from embedstore.store.store import Store

Mode = Literal["hybrid", "dense", "lexical"]
CollectionArg = Annotated[
    str | None,
    Field(description="The collection (list_collections names them); may be left out when "
          "the store holds only one."),
]
CollectionsArg = Annotated[
    str | None,
    Field(description="The collection to search (list_collections names them); leave it out "
          "to search every collection."),
]
ModeArg = Annotated[
    Mode,
    Field(description="hybrid (default): meaning and identifiers; dense: meaning only; "
          "lexical: exact identifiers and words (BM25)."),
]
# A lone string where a list is asked for is taken as a list of one: agents send both.
IncludeArg = Annotated[
    list[str] | str | None,
    Field(description=".gitignore-style globs a path (relative to the indexed folder) must "
          "match one of, e.g. ['src/**', '*.py']."),
]
ExcludeArg = Annotated[
    list[str] | str | None, Field(description=".gitignore-style globs of paths to leave out.")
]
LanguageArg = Annotated[
    list[str] | str | None,
    Field(description="Only these languages, e.g. ['python']; the error lists valid ones."),
]
# Whole numbers as the REST API takes them: 3 and 3.0, never "3" or true.
KArg = Annotated[
    int, Field(ge=1, le=100, description="How many definitions at most."), JsonInteger,
    Strict(),
]
MaxTokensArg = Annotated[
    int, Field(ge=1, le=100_000, description="Token budget for the packed code."), JsonInteger,
    Strict(),
]
# Below this not even a few hits' headers fit.
MIN_REPLY_TOKENS = 200
ReplyTokensArg = Annotated[
    int,
    Field(ge=MIN_REPLY_TOKENS, le=100_000, description="Budget for the whole reply, in tokens "
          "(3 characters each); hits that do not fit are cut at a line or left out, and the "
          "reply says so."),
    JsonInteger, Strict(),
]
LineArg = Annotated[
    Annotated[int, Field(ge=1), JsonInteger, Strict()] | None,
    Field(description="With path: the cursor is at the start of this line (1-based) of the "
          "file, which the server reads from the collection's folder."),
]
ColumnArg = Annotated[
    Annotated[int, Field(ge=1), JsonInteger, Strict()] | None,
    Field(description="With line: the cursor stands before this character (1-based) of the "
          "line, as an editor's does mid-line (after `cmd.`); the start of the line if left "
          "out."),
]


class Tools:
    def __init__(
        self, store: Store, collections: CollectionCache, max_query_chars: int,
        warmup: Warmup | None,
    ) -> None:
        self._store = store
        self._collections = collections
        self._max_query_chars = max_query_chars
        self._warmup = warmup

    def search(
        self,
        query: Annotated[str, Field(description="What the code does or is, in words or names.")],
        collection: CollectionsArg = None,
        k: KArg = 10,
        mode: ModeArg = "hybrid",
        include: IncludeArg = None,
        exclude: ExcludeArg = None,
        language: LanguageArg = None,
        max_tokens: ReplyTokensArg = 2000,
        include_code: Annotated[
            bool, Field(description="Whole bodies instead of each hit's head and matched "
                        "lines (still within max_tokens).")
        ] = False,
    ) -> Annotated[CallToolResult, SearchOutput]:
        """Locate code by what it does or by name: the best matching definitions (functions,
        methods, classes, doc sections), each as abs_path:start-end with its symbol, kind,
        score, signature and the lines that matched. Use it first, to find where something
        is implemented or used, then read or edit the file at those lines; prefer it to grep
        when you know what code does but not what it is called. The reply stays within
        max_tokens (about 2,000 by default); set include_code for whole bodies."""
        check_query_length(query, self._max_query_chars)
        self._wait()
        with self._lease_many(collection) as (opened, skipped):
            filters = _filters(opened, include, exclude, language)
            hits = search_members([LocalMember(c) for c in opened], query, k, mode=mode,
                                  filters=filters, skipped=skipped)
            found, text = fit_search(
                hits, collections=_answered(opened, hits.skipped), query=query, mode=mode,
                max_tokens=max_tokens, include_code=include_code, skipped=hits.skipped,
            )
        return _answer(found, text)

    def context(
        self,
        query: Annotated[str, Field(description="The task or question the context is for.")],
        max_tokens: MaxTokensArg = 2000,
        collection: CollectionsArg = None,
        mode: ModeArg = "hybrid",
        include: IncludeArg = None,
        exclude: ExcludeArg = None,
        language: LanguageArg = None,
    ) -> Annotated[CallToolResult, ContextOutput]:
        """Background for a task in one call: the definitions most relevant to it, packed
        into max_tokens in rank order, each under an abs_path:lines header (long ones cut to
        their signature and the part that matched). Use it to understand an area before a
        change; use search to locate specific code, context_for_code before writing code
        that calls into the repository."""
        check_query_length(query, self._max_query_chars)
        self._wait()
        with self._lease_many(collection) as (opened, skipped):
            filters = _filters(opened, include, exclude, language)
            hits = search_members([LocalMember(c) for c in opened], query, CONTEXT_CANDIDATES,
                                  mode=mode, filters=filters, skipped=skipped)
            # Absolute paths: an agent opens them, and two collections' files never merge.
            many = len(opened) > 1
            placed = [dataclasses.replace(h, path=h.abs_path or (
                f"{h.collection}/{h.path}" if many else h.path)) for h in hits]
            packed = pack_context(query, placed, max_tokens, encoder_prompt_counter(opened[0]))
            found = _context_output(opened, query, packed, hits.skipped)
        text = packed.text or "Nothing relevant fits the budget."
        return _answer(found, "\n\n".join([text, *skipped_lines(hits.skipped)]))

    def context_for_code(
        self,
        code: Annotated[
            str | None, Field(description="The file's text before the cursor (or give path "
                              "and line instead).")
        ] = None,
        code_after: Annotated[
            str | None, Field(description="With code: the file's text after the cursor.")
        ] = None,
        path: Annotated[
            str | None,
            Field(description="The file being edited, absolute or relative to the collection's "
                  "folder; its own definitions are left out."),
        ] = None,
        line: LineArg = None,
        column: ColumnArg = None,
        max_tokens: MaxTokensArg = 2000,
        collection: CollectionArg = None,
        include: IncludeArg = None,
        exclude: ExcludeArg = None,
        language: LanguageArg = None,
        format: Annotated[
            Literal["qwen", "starcoder2", "deepseek-coder", "codellama", "llama-infill"] | None,
            Field(description="Answer a completion model's whole fill-in-the-middle prompt in "
                  "this family's layout (llama-infill: llama.cpp's /infill JSON body), with "
                  "paths relative to the repository as the model was trained on them."),
        ] = None,
    ) -> Annotated[CallToolResult, ContextOutput]:
        """Before writing or completing code at a cursor: what that code needs from OTHER
        files of the repository, i.e. signatures (then bodies, budget permitting) of the
        functions, classes and constants it imports or is about to use, packed into
        max_tokens under abs_path:lines headers. Give the file and line (path, line, and
        column when the cursor stands mid-line), or the text before the cursor (code,
        code_after)."""
        self._wait()
        with self._lease(collection) as opened:
            before, after, where = _cursor_code(opened, code, code_after, path, line, column)
            filters = _filters([opened], include, exclude, language)
            if format is None:
                packed = _cursor_context(opened, before, after, where, max_tokens, filters)
                found = _context_output([opened], "", packed)
                return _answer(
                    found, packed.text or "No definitions of other files fit the budget."
                )
            packed = context_for_code(opened, before, code_after=after, path=where,
                                      max_tokens=max_tokens, filters=filters)
            prompt = layout_prompt(packed, format, code=before, code_after=after or "",
                                   path=where or "", repo=opened.name)
            root = opened.manifest.source_root
            placed = [_placed(b, root) for b in packed.blocks] if root else packed.blocks
            found = _context_output([opened], "", dataclasses.replace(packed, blocks=placed))
        return _answer(found, prompt if isinstance(prompt, str) else json.dumps(prompt))

    def list_collections(
        self, collection: Annotated[
            str | None, Field(description="One collection's status; leave it out for all.")
        ] = None,
    ) -> Annotated[CallToolResult, CollectionsOutput]:
        """Which repositories are indexed and how fresh each is: name, folder, file and
        definition counts, when it was last indexed (and git HEAD then), and whether files
        were added, removed or modified since. Use it to find the collection name the other
        tools take, or to check that results are current: when a collection is stale,
        results may point at old line numbers or miss new code, so read the files."""
        if collection is None:
            statuses, unreadable = self._collections.read_each(_status)
        else:
            with self._lease(_named(collection)) as opened:
                statuses, unreadable = [_status(opened)], {}
        found = CollectionsOutput(collections=statuses, unreadable=unreadable)
        lines = [status_line(s) for s in statuses]
        lines += [f"{name}: cannot be read: {why}" for name, why in unreadable.items()]
        return _answer(found, "\n".join(lines) or f"No collections in {self._store.root}.")

    def _wait(self) -> None:
        if self._warmup is not None:
            self._warmup.wait_for_encoders()

    @contextmanager
    def _lease_many(self, name: str | None) -> Iterator[tuple[list[Collection], list[Skipped]]]:
        """The named collection, or every collection of the store that opens, and those
        skipped (damaged, or deleted meanwhile): one must not hide the others."""
        if name is not None:
            with self._collections.lease(_named(name)) as opened:
                yield [opened], []
            return
        names = self._store.names()
        if not names:
            raise ToolError(f"no collections in {self._store.root}: run `embedstore index PATH`")
        with ExitStack() as stack:
            members, skipped = open_members(
                names, lambda n: stack.enter_context(self._collections.lease(n)), missing_ok=True
            )
            yield [m.collection for m in members], skipped

    @contextmanager
    def _lease(self, name: str | None) -> Iterator[Collection]:
        chosen = _named(name) if name is not None else self._only_collection()
        with self._collections.lease(chosen) as opened:
            yield opened

    def _only_collection(self) -> str:
        names = self._store.names()
        if len(names) == 1:
            return names[0]
        if not names:
            raise ToolError(f"no collections in {self._store.root}: run `embedstore index PATH`")
        raise ToolError(
            f"several collections exist ({', '.join(names)}): pass collection=<one of them>"
        )


def _named(name: str) -> str:
    # An empty name is no collection: it would otherwise read as "every collection".
    if not name.strip():
        raise ValueError("collection is empty: give a name (list_collections lists them) or "
                         "leave the argument out")
    return name


def _cursor_code(
    collection: Collection, code: str | None, code_after: str | None, path: str | None,
    line: int | None, column: int | None,
) -> tuple[str, str | None, str | None]:
    """(the code before the cursor, after it, the file's path in the collection)."""
    root = collection.manifest.source_root
    if column is not None and line is None:
        raise ValueError("column goes with path and line: the cursor's place on that line")
    if line is not None:
        if code is not None or code_after is not None:
            raise ValueError("give either code (and code_after) or path and line")
        if path is None:
            raise ValueError("line goes with path: the file to read the cursor's code from")
        cursor = read_cursor(root, collection.name, path, line, column or 1)
        return cursor.before, cursor.after, cursor.path
    if code is None:
        raise ValueError("give the code before the cursor as code, or a file of the "
                         "collection as path and line")
    if len(code) + len(code_after or "") > MAX_CODE_CHARS:
        raise ValueError(f"code and code_after may hold at most {MAX_CODE_CHARS:,} characters")
    return code, code_after, _in_collection(root, path)


def _in_collection(source_root: str | None, path: str | None) -> str | None:
    """``path`` as the index names it: an absolute path inside the folder made relative."""
    if path is None or source_root is None or not Path(path).is_absolute():
        return path
    root = Path(source_root)
    return Path(path).relative_to(root).as_posix() if Path(path).is_relative_to(root) else path


def _cursor_context(
    collection: Collection, before: str, after: str | None, path: str | None,
    max_tokens: int, filters: SearchFilters,
) -> RagContext:
    """code-at-cursor's context with absolute paths, still within ``max_tokens``.

    Packing counts the paths as the index names them; absolute ones are longer, so
    when the rewritten text runs over, it is packed again with the excess taken off.
    """
    root = collection.manifest.source_root
    count = encoder_prompt_counter(collection)
    budget = max_tokens
    while True:
        packed = context_for_code(collection, before, code_after=after, path=path,
                                  max_tokens=budget, filters=filters)
        if root is None:
            return packed
        blocks = [_placed(b, root) for b in packed.blocks]
        text = render(blocks)
        tokens = count([text])[0] if blocks else 0
        if tokens <= max_tokens or budget == 1:
            return RagContext(packed.query, text, tokens, max_tokens, blocks)
        budget = max(1, budget - (tokens - max_tokens))


def _placed(block: ContextBlock, root: str) -> ContextBlock:
    return dataclasses.replace(block, path=str(Path(root) / block.path))


def _answered(opened: list[Collection], skipped: Sequence[Skipped]) -> list[str]:
    left_out = {s.collection for s in skipped}
    return [c.name for c in opened if c.name not in left_out]


def _context_output(
    opened: list[Collection], query: str, packed: RagContext, skipped: Sequence[Skipped] = ()
) -> ContextOutput:
    return ContextOutput(
        collection=opened[0].name if len(opened) == 1 else "", query=query,
        tokens=packed.tokens, max_tokens=packed.max_tokens,
        blocks=[ContextBlockOutput(path=b.path, ranges=b.ranges) for b in packed.blocks],
        skipped=skipped_out(skipped),
    )


def _filters(
    collections: list[Collection], include: list[str] | str | None,
    exclude: list[str] | str | None, language: list[str] | str | None,
) -> SearchFilters:
    languages = _listed(language)
    check_languages(collections, languages)
    return SearchFilters(include=_listed(include), exclude=_listed(exclude), languages=languages)


def _listed(value: list[str] | str | None) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value or ())


def _status(collection: Collection) -> IndexStatus:
    stats = collection.stats()
    fresh = freshness.check(collection)
    return IndexStatus(
        name=stats.name, files=stats.files, units=stats.units, chunks=stats.chunks,
        encoder=stats.manifest.encoder, source_root=stats.manifest.source_root,
        indexed_at=fresh.indexed_at_iso, git_head=fresh.git_head, stale=fresh.stale,
        changed_files=fresh.changed_files, added=fresh.added, removed=fresh.removed,
        modified=fresh.modified, unknown=fresh.unknown,
    )


def _answer(structured: BaseModel, text: str) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured.model_dump(mode="json"),
    )
