"""No MCP `search` reply over its budget (issue 31): 20 queries at k=10 over a real
collection (this package's retrieval layer, the real default model), each reply measured
as an agent receives it, its text plus its structured content."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from embedstore.api.mcp_replies import CHARS_PER_TOKEN
from embedstore.api.mcp_server import build_mcp_server
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.tokenizers import load_tokenizer
from embedstore.store.store import Store

RETRIEVAL = Path(__file__).resolve().parents[2] / "embedstore" / "retrieval"
QUERIES = [
    "fuse dense and lexical scores", "pack definitions into a token budget",
    "search several collections at once", "filter results by glob and language",
    "load a tokenizer by name", "resolve the imports of the code at a cursor",
    "the signature of a definition", "merge overlapping blocks of one file",
    "reciprocal rank fusion", "encode the query once for every member",
    "which lines of a hit to show", "outline of a class with its members",
    "check the search arguments", "refuse members with different encoders",
    "cache of file texts", "similar code by lexical search",
    "best piece of a split unit", "statement ends where a cut is clean",
    "SearchResult", "context_for_code",
]
BUDGET = 2000


@pytest.mark.slow
def test_no_search_reply_exceeds_the_budget_over_20_queries_at_k_10(tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    index_folder(store, RETRIEVAL, IndexOptions(name="retrieval"))
    cl100k = load_tokenizer("cl100k_base")

    async def ask() -> list[CallToolResult]:
        async with Client(build_mcp_server(store)) as client:
            return [await client.call_tool("search", {"query": q, "k": 10}) for q in QUERIES]

    replies = asyncio.run(ask())

    shown = 0
    for query, reply in zip(QUERIES, replies, strict=True):
        assert not reply.is_error, (query, reply.content)
        block = reply.content[0]
        assert isinstance(block, TextContent) and reply.structured_content is not None
        sent = json.dumps(reply.structured_content, separators=(",", ":"))
        characters = len(block.text) + len(sent)
        assert reply.structured_content["tokens"] <= BUDGET, query
        assert characters <= BUDGET * CHARS_PER_TOKEN, query
        assert sum(cl100k([block.text, sent])) <= BUDGET, query  # a coding model's tokens
        hits = reply.structured_content["results"]
        assert len(hits) + reply.structured_content["omitted"] == 10, query
        assert all(Path(h["path"]).is_absolute() and Path(h["path"]).is_file() for h in hits)
        shown += len(hits)
    assert shown >= 180  # the budget holds ten locations, not three bodies
