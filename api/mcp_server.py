"""embedstore as an MCP server for coding agents: search, context, collections, freshness.

``build_mcp_server`` makes the server (the official SDK's ``MCPServer``) over a
store; ``embedstore mcp`` speaks it over stdio, and ``embedstore serve`` at
``/mcp`` over streamable HTTP through ``McpHttpEndpoint``, behind the same API
keys as the REST routes.

Each tool answers twice: structured content (its output schema) for programs,
and a text version for the model to read. The library's errors come back as
tool errors carrying their message, never as a crash of the server.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from typing import Annotated, Any, Literal, ParamSpec, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.types import CallToolResult, InputRequiredResult, TextContent
from pydantic import BaseModel, Field, Strict, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from embedstore.api.collection_cache import CollectionCache
from embedstore.api.deps import get_state, require_api_key
from embedstore.api.errors import describe_invalid
from embedstore.api.limits import check_query_length
from embedstore.api.schemas import JsonInteger
from embedstore.api.settings import MAX_QUERY_CHARS
from embedstore.errors import EmbedstoreError
from embedstore.ingest import freshness
from embedstore.retrieval.code_context import MAX_CODE_CHARS, context_for_code
from embedstore.retrieval.context import encoder_prompt_counter
from embedstore.retrieval.federation import LocalMember, context_members, search_members
from embedstore.retrieval.filters import SearchFilters
from embedstore.store import db
from embedstore.store.collection import Collection
from embedstore.store.store import Store

P = ParamSpec("P")
R = TypeVar("R")

INSTRUCTIONS = """\
embedstore is a semantic index of code repositories. Each collection is one indexed folder,
searched by meaning and by identifiers; every hit is a whole definition (function, method,
class, or a section of a document) as path:start-end, with its code.
- search: find where something is implemented or used, before reading or editing files.
- context: a prompt-ready set of the most relevant definitions within a token budget.
- context_for_code: what the code at a cursor needs from other files (signatures, bodies).
- list_collections: which repositories are indexed.
- index_status: whether a collection still matches its folder (files changed since indexing).
Paths are relative to the indexed folder; line numbers are 1-based and inclusive."""

Mode = Literal["hybrid", "dense", "lexical"]
CollectionArg = Annotated[
    str | None,
    Field(description="Collection to use; may be left out when the store holds only one."),
]
CollectionsArg = Annotated[
    str | None,
    Field(description="Collection to search; leave it out to search every collection."),
]
ModeArg = Annotated[
    Mode,
    Field(description="hybrid (default): meaning and identifiers; dense: meaning only; "
          "lexical: exact identifiers and words (BM25)."),
]
# A lone string where a list is asked for is taken as a list of one: agents send both.
IncludeArg = Annotated[
    list[str] | str | None,
    Field(description=".gitignore-style globs a path must match one of, e.g. ['src/**', '*.py']."),
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
    int, Field(ge=1, le=100, description="How many definitions."), JsonInteger, Strict()
]
MaxTokensArg = Annotated[
    int, Field(ge=1, le=100_000, description="Token budget for the packed code."), JsonInteger,
    Strict(),
]


class SearchHit(BaseModel):
    collection: str
    path: str = Field(description="Relative to the collection's indexed folder.")
    abs_path: str | None = Field(description="Where the file is on disk (null: a document).")
    start_line: int
    end_line: int
    match_start_line: int = Field(description="First line of the piece that matched best.")
    match_end_line: int
    symbol: str | None
    kind: str
    language: str
    score: float
    code: str = Field(description="The whole definition, lines start_line..end_line.")


class SearchOutput(BaseModel):
    collection: str | None = Field(description="The collection searched; null for several.")
    collections: list[str]
    query: str
    mode: str
    results: list[SearchHit]


class ContextBlockOutput(BaseModel):
    path: str
    ranges: list[tuple[int, int]] = Field(description="Runs of lines included, in order.")


class ContextOutput(BaseModel):
    collection: str
    query: str
    tokens: int
    max_tokens: int
    text: str = Field(description="The packed context: each block under a path:lines header.")
    blocks: list[ContextBlockOutput]


class IndexStatus(BaseModel):
    name: str
    files: int
    units: int
    chunks: int
    encoder: str
    source_root: str | None
    indexed_at: str | None = Field(description="Last index run, ISO 8601 UTC.")
    git_head: str | None = Field(description="HEAD commit at that run, for a git work tree.")
    stale: bool | None = Field(description="Files changed since; null when it cannot be told.")
    changed_files: int
    added: int
    removed: int
    modified: int
    unknown: str | None = Field(description="Why stale is null.")


class CollectionsOutput(BaseModel):
    collections: list[IndexStatus]
    unreadable: dict[str, str] = Field(description="Collections that cannot be opened, and why.")


def build_mcp_server(
    store: Store, collections: CollectionCache | None = None, *,
    max_query_chars: int = MAX_QUERY_CHARS,
) -> MCPServer:
    """The MCP server over ``store``; ``collections`` shares open collections with the REST API,
    whose query limit ``max_query_chars`` the tools apply too."""
    tools = _Tools(store, collections or CollectionCache(store), max_query_chars)
    # WARNING: the SDK configures the root logger at this level when nothing else has.
    server = _OneLineErrors("embedstore", instructions=INSTRUCTIONS, log_level="WARNING")
    for tool in (tools.search, tools.context, tools.context_for_code, tools.list_collections,
                 tools.index_status):
        server.add_tool(tool, structured_output=True)
    return server


class _OneLineErrors(MCPServer):
    """Arguments refused by their schema answer one line naming each field, as the REST API
    does, where the SDK gives pydantic's multi-line report with a link per error."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            message, _ = describe_invalid(exc.__cause__.errors())
            raise ToolError(f"invalid arguments for {name}: {message}") from exc.__cause__


def _tool_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """The library's errors as tool errors: the model reads the message and can correct itself."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except (EmbedstoreError, ValueError) as exc:
            raise ToolError(str(exc)) from exc

    return wrapper


class _Tools:
    def __init__(self, store: Store, collections: CollectionCache, max_query_chars: int) -> None:
        self._store = store
        self._collections = collections
        self._max_query_chars = max_query_chars

    @_tool_errors
    def search(
        self,
        query: Annotated[str, Field(description="What the code does or is, in words or names.")],
        collection: CollectionsArg = None,
        k: KArg = 10,
        mode: ModeArg = "hybrid",
        include: IncludeArg = None,
        exclude: ExcludeArg = None,
        language: LanguageArg = None,
    ) -> Annotated[CallToolResult, SearchOutput]:
        """Find the definitions (functions, methods, classes, doc sections) that match a
        description, a behaviour or an identifier, best first, each as path:start-end with
        its code. Use it before reading files, to locate where something is implemented, and
        prefer it to grep when you know what the code does but not what it is called."""
        check_query_length(query, self._max_query_chars)
        with self._lease_many(collection) as opened:
            filters = _filters(opened, include, exclude, language)
            members = [LocalMember(c) for c in opened]
            hits = search_members(members, query, k, mode=mode, filters=filters)
            names = [c.name for c in opened]
            found = SearchOutput(
                collection=names[0] if len(names) == 1 else None, collections=names,
                query=query, mode=mode, results=[
                SearchHit(
                    collection=h.collection, abs_path=h.abs_path,
                    path=h.path, start_line=h.start_line, end_line=h.end_line,
                    match_start_line=h.match_start_line, match_end_line=h.match_end_line,
                    symbol=h.symbol, kind=h.kind, language=h.language, score=round(h.score, 4),
                    code=h.text,
                )
                for h in hits
            ])
        return _answer(found, _search_text(found))

    @_tool_errors
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
        """The definitions most relevant to a task, packed into a token budget in rank
        order, each under a path:lines header (long ones cut to their signature and the part
        that matched). Use it to gather background for a change or a question in one call;
        use search instead to locate specific code."""
        check_query_length(query, self._max_query_chars)
        with self._lease_many(collection) as opened:
            filters = _filters(opened, include, exclude, language)
            packed = context_members(
                [LocalMember(c) for c in opened], query, max_tokens,
                encoder_prompt_counter(opened[0]), mode=mode, filters=filters,
            )
            found = ContextOutput(
                collection=opened[0].name if len(opened) == 1 else "", query=query,
                tokens=packed.tokens,
                max_tokens=packed.max_tokens, text=packed.text,
                blocks=[ContextBlockOutput(path=b.path, ranges=b.ranges) for b in packed.blocks],
            )
        return _answer(found, found.text or "Nothing relevant fits the budget.")

    @_tool_errors
    def context_for_code(
        self,
        code: Annotated[str, Field(description="The file's text before the cursor.")],
        code_after: Annotated[
            str | None, Field(description="The file's text after the cursor, if any.")
        ] = None,
        path: Annotated[
            str | None,
            Field(description="The file's path in the collection; that file is left out."),
        ] = None,
        max_tokens: MaxTokensArg = 2000,
        collection: CollectionArg = None,
        include: IncludeArg = None,
        exclude: ExcludeArg = None,
        language: LanguageArg = None,
    ) -> Annotated[CallToolResult, ContextOutput]:
        """What the code at a cursor needs from OTHER files of the repository: signatures
        (then bodies, budget permitting) of the functions, classes and constants it imports
        or is about to use, packed into a token budget. Use it before writing or completing
        code that calls into the rest of the codebase."""
        if len(code) + len(code_after or "") > MAX_CODE_CHARS:
            raise ValueError(f"code and code_after may hold at most {MAX_CODE_CHARS:,} characters")
        with self._lease(collection) as opened:
            filters = _filters([opened], include, exclude, language)
            packed = context_for_code(
                opened, code, code_after=code_after, path=path, max_tokens=max_tokens,
                filters=filters,
            )
            found = ContextOutput(
                collection=opened.name, query="", tokens=packed.tokens,
                max_tokens=packed.max_tokens, text=packed.text,
                blocks=[ContextBlockOutput(path=b.path, ranges=b.ranges) for b in packed.blocks],
            )
        return _answer(found, found.text or "No definitions of other files fit the budget.")

    @_tool_errors
    def list_collections(self) -> Annotated[CallToolResult, CollectionsOutput]:
        """The indexed collections: name, folder, sizes, when last indexed and whether files
        changed since. Use it to find the collection name for the other tools when the
        store holds several."""
        statuses, unreadable = self._collections.read_each(_status)
        found = CollectionsOutput(collections=statuses, unreadable=unreadable)
        lines = [_status_line(s) for s in statuses]
        lines += [f"{name}: cannot be read: {why}" for name, why in unreadable.items()]
        return _answer(found, "\n".join(lines) or f"No collections in {self._store.root}.")

    @_tool_errors
    def index_status(
        self, collection: CollectionArg = None
    ) -> Annotated[CallToolResult, IndexStatus]:
        """How a collection stands: its folder, file/definition/chunk counts, when it was
        last indexed, the git HEAD then, and whether files were added, removed or modified
        since (judged from file sizes and times). When it is stale, search results may point
        at old line numbers or miss new code: read the files themselves to confirm."""
        with self._lease(collection) as opened:
            found = _status(opened)
        return _answer(found, _status_line(found))

    @contextmanager
    def _lease_many(self, name: str | None) -> Iterator[list[Collection]]:
        """The named collection, or every collection of the store."""
        names = [name] if name else self._store.names()
        if not names:
            raise ToolError(f"no collections in {self._store.root}: run `embedstore index PATH`")
        with ExitStack() as stack:
            yield [stack.enter_context(self._collections.lease(n)) for n in names]

    @contextmanager
    def _lease(self, name: str | None) -> Iterator[Collection]:
        with self._collections.lease(name or self._only_collection()) as opened:
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


def _filters(
    collections: list[Collection], include: list[str] | str | None,
    exclude: list[str] | str | None, language: list[str] | str | None,
) -> SearchFilters:
    languages = _listed(language)
    if languages:
        # Any other name would silently find nothing: say which ones exist here.
        present = sorted({language for c in collections
                          for _, _, language in db.file_filter_rows(c.conn)})
        unknown = [name for name in languages if name not in present]
        if unknown:
            where = (f"collection {collections[0].name!r}" if len(collections) == 1
                     else "these collections")
            raise ValueError(
                f"{', '.join(map(repr, unknown))} is not a language of {where}; "
                f"valid here: {', '.join(present) or 'none, it is empty'}"
            )
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


def where(hit: SearchHit) -> str:
    """The file as an agent started anywhere opens it."""
    return hit.abs_path or hit.path


def _search_text(found: SearchOutput) -> str:
    if not found.results:
        return f"No results in {', '.join(found.collections)}."
    parts = []
    for rank, hit in enumerate(found.results, 1):
        name = f"  {hit.symbol}" if hit.symbol else ""
        parts.append(
            f"{rank}. {where(hit)}:{hit.start_line}-{hit.end_line}{name}  "
            f"({hit.kind}, score {hit.score:.3f})\n```{hit.language}\n{hit.code}\n```"
        )
    return "\n\n".join(parts)


def _status_line(status: IndexStatus) -> str:
    if status.stale is None:
        state = f"freshness unknown ({status.unknown})"
    elif status.stale:
        state = (f"STALE: {status.added} added, {status.removed} removed, "
                 f"{status.modified} modified since")
    else:
        state = "up to date"
    head = f" at {status.git_head[:12]}" if status.git_head else ""
    return (
        f"{status.name}: {status.source_root or 'documents'}; {status.files:,} files, "
        f"{status.units:,} definitions; indexed {status.indexed_at or 'at an unknown time'}"
        f"{head}; {state}"
    )


class McpHttpEndpoint:
    """The streamable-HTTP transport as an ASGI route, behind the REST API's key rule.

    Mounted as a route, the transport skips FastAPI's dependencies, so it checks
    the key itself (a 401 in the API's error shape). ``running`` belongs in the
    app's lifespan: the SDK's session manager runs once per instance, so each
    lifespan gets a fresh one.
    """

    def __init__(self, server: MCPServer, host: str) -> None:
        self._server = server
        self._host = host  # loopback hosts get the SDK's DNS-rebinding protection
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self._server.streamable_http_app(streamable_http_path="/mcp", host=self._host)
        manager = self._server.session_manager
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        require_api_key(request, get_state(request))
        if self._manager is None:
            raise HTTPException(503, "the MCP endpoint is not running: the server is stopping")
        await self._manager.handle_request(scope, receive, send)
