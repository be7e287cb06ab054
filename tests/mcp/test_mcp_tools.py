"""The MCP tools through the SDK's own client, in-process: which collection, errors,
freshness. Real SQLite and FAISS, the fake encoder; stdio and HTTP with the real model
are in test_mcp_stdio.py and test_mcp_http.py."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from embedstore.api.mcp_server import build_mcp_server
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

T = TypeVar("T")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "config.py").write_text(
        "def load_config(path):\n    \"\"\"Parse the config file and merge defaults.\"\"\"\n"
        "    return merge(DEFAULTS, read(path))\n"
    )
    (root / "net.go").write_text("package net\n\nfunc FetchPage(url string) string {\n"
                                 "\treturn get(url)\n}\n")
    return root


def with_client(store: Store, talk: Callable[[Client], Awaitable[T]]) -> T:
    async def session() -> T:
        async with Client(build_mcp_server(store)) as client:
            return await talk(client)

    return asyncio.run(session())


def call(store: Store, tool: str, arguments: dict[str, Any]) -> CallToolResult:
    return with_client(store, lambda client: client.call_tool(tool, arguments))


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_search_answers_with_structured_hits_and_readable_text(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))

    result = call(store, "search", {"query": "merge defaults config", "k": 1,
                                    "language": ["python"]})

    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    hit = result.structured_content["results"][0]
    assert (hit["path"], hit["start_line"], hit["end_line"], hit["symbol"]) == (
        "config.py", 1, 3, "load_config"
    )
    assert hit["code"].startswith("def load_config(path):")
    assert hit["abs_path"] == str(repo / "config.py")
    assert text_of(result).startswith(f"1. {repo / 'config.py'}:1-3  load_config")


def test_search_covers_every_collection_unless_one_is_named(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))
    assert not call(store, "index_status", {}).is_error
    index_folder(store, repo, IndexOptions(name="other", encoder=FAKE_SPEC))

    everywhere = call(store, "search", {"query": "fetch page"})
    named = call(store, "search", {"query": "fetch page", "collection": "other"})
    status = call(store, "index_status", {})

    assert not everywhere.is_error and everywhere.structured_content is not None
    assert everywhere.structured_content["collections"] == ["code", "other"]
    assert {h["collection"] for h in everywhere.structured_content["results"]} == {
        "code", "other"
    }
    assert not named.is_error and named.structured_content is not None
    assert named.structured_content["collection"] == "other"
    assert {h["collection"] for h in named.structured_content["results"]} == {"other"}
    # A tool about one collection still needs its name.
    assert status.is_error and "several collections exist (code, other)" in text_of(status)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"query": "x", "collection": "nope"}, "no collection named 'nope'"),
        ({"query": "x", "mode": "fuzzy"}, "'hybrid', 'dense' or 'lexical'"),
        ({"query": "x", "language": ["cobol"]}, "valid here: go, python"),
        ({"query": "   "}, "the query is empty"),
        ({"query": "x", "k": 0}, "greater than or equal to 1"),
    ],
    ids=["unknown-collection", "bad-mode", "unknown-language", "empty-query", "bad-k"],
)
def test_bad_arguments_are_tool_errors_with_a_clear_message(
    repo: Path, fake_encoder: FakeEncoder, arguments: dict[str, Any], message: str
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))

    result = call(store, "search", arguments)

    assert result.is_error
    assert message in text_of(result)


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("search", {"query": "x", "k": "3"}, "invalid arguments for search: k: Input should be "
         "a valid integer"),
        ("search", {"query": "x", "k": True}, "k: Input should be a valid integer"),
        ("search", {"query": "x", "k": 0, "mode": "dnse"}, "k: Input should be greater than or "
         "equal to 1; mode: Input should be 'hybrid', 'dense' or 'lexical'"),
        ("context", {"query": "x", "max_tokens": "60"}, "max_tokens: Input should be a valid "
         "integer"),
        ("search", {"query": "x" * 4097}, "a query has 4,097 characters; the limit is 4,096"),
        ("context", {"query": "x" * 4097}, "the limit is 4,096"),
        ("search", {"query": "x", "include": ["["]}, "invalid glob '['"),
        ("search", {"query": "x", "exclude": ["\\"]}, "invalid glob '\\\\'"),
        ("search", {"query": "x", "exclude": "["}, "invalid glob '['"),
    ],
    ids=["k-string", "k-true", "two-fields", "max-tokens-string", "long-query",
         "long-context-query", "unclosed-include", "backslash-exclude", "lone-glob"],
)
def test_refused_arguments_are_one_line_as_in_rest(
    repo: Path, fake_encoder: FakeEncoder, tool: str, arguments: dict[str, Any], message: str
) -> None:
    """Issue 21, F15: pydantic's multi-line reports, "3" taken for 3, no query limit, and a
    glob that matched nothing silently on one side but was an error on the other."""
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))

    result = call(store, tool, arguments)

    assert result.is_error
    assert message in text_of(result) and "\n" not in text_of(result), text_of(result)
    assert "pydantic" not in text_of(result)


def test_a_lone_string_is_taken_for_a_list_of_one(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))

    result = call(store, "search", {"query": "fetch page", "language": "go",
                                    "include": "*.go", "exclude": "*.py", "k": 3.0})

    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    assert {h["path"] for h in result.structured_content["results"]} == {"net.go"}


def test_an_empty_store_says_what_to_do(fake_encoder: FakeEncoder) -> None:
    result = call(Store(), "context", {"query": "anything"})
    assert result.is_error and "embedstore index PATH" in text_of(result)
    listed = call(Store(), "list_collections", {})
    assert not listed.is_error and listed.structured_content == {
        "collections": [], "unreadable": {}
    }


def test_index_status_and_list_collections_tell_when_files_changed(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))
    fresh = call(store, "index_status", {"collection": "code"})
    assert fresh.structured_content is not None
    assert fresh.structured_content["stale"] is False
    assert fresh.structured_content["files"] == 2 and fresh.structured_content["indexed_at"]

    (repo / "new.py").write_text("def added():\n    pass\n")
    (repo / "net.go").unlink()
    stale = call(store, "index_status", {})
    listed = call(store, "list_collections", {})

    assert stale.structured_content is not None and listed.structured_content is not None
    assert (stale.structured_content["stale"], stale.structured_content["added"],
            stale.structured_content["removed"]) == (True, 1, 1)
    assert "STALE: 1 added, 1 removed, 0 modified since" in text_of(stale)
    assert listed.structured_content["collections"][0]["stale"] is True


def test_context_packs_within_the_budget(repo: Path, fake_encoder: FakeEncoder) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))

    result = call(store, "context", {"query": "merge defaults config", "max_tokens": 60})

    assert not result.is_error, text_of(result)
    packed = result.structured_content
    assert packed is not None and 0 < packed["tokens"] <= 60
    assert packed["blocks"][0] == {"path": "config.py", "ranges": [[1, 3]]}
    assert text_of(result) == packed["text"] and packed["text"].startswith("config.py:1-3\n")
