"""`embedstore mcp` as an agent starts it: a subprocess on stdio, the SDK's own client,
the real default model over the demo repository."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import TextContent

from embedstore.ingest.indexer import index_folder
from embedstore.store.store import Store
from tests.api.server import REQUEST_TIMEOUT_S, START_TIMEOUT_S

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-repo"
TOOLS = {"search", "context", "context_for_code", "list_collections"}


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mcp") / "demo-repo"
    shutil.copytree(DEMO, root)
    store = root.parent / "store"
    index_folder(Store(store), root)
    return store


def stdio_server(store: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "embedstore", "mcp", "--store", str(store)],
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )


def text_of(content: list[object]) -> str:
    block = content[0]
    assert isinstance(block, TextContent)
    return block.text


@pytest.mark.slow
def test_stdio_server_lists_tools_searches_and_reports_errors(demo_store: Path) -> None:
    server = stdio_server(demo_store)
    loader = demo_store.parent / "demo-repo" / "src" / "settings" / "loader.py"

    async def session() -> None:
        async with Client(server, read_timeout_seconds=REQUEST_TIMEOUT_S) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(tools) == TOOLS
            for tool in tools.values():
                assert tool.description and tool.output_schema, tool.name

            found = await client.call_tool(
                "search", {"query": "parse the config file and merge defaults", "k": 3}
            )
            assert not found.is_error, text_of(found.content)
            assert found.structured_content is not None
            hits = found.structured_content["results"]
            located = {(h["path"], h["start_line"], h["end_line"], h["symbol"]) for h in hits}
            assert (str(loader), 12, 20, "deep_merge") in located
            assert hits[0]["path"] == str(loader)
            # an absolute path: an agent opens it from anywhere
            assert f"{loader}:12-20  deep_merge" in text_of(found.content)

            packed = await client.call_tool(
                "context", {"query": "how are settings merged with defaults?", "max_tokens": 300}
            )
            assert not packed.is_error and packed.structured_content is not None
            assert packed.structured_content["tokens"] <= 300
            assert f"{loader}:" in text_of(packed.content)

            cursor = await client.call_tool("context_for_code", {
                "code": "from src.settings.loader import load_config\n\n\ndef main():\n"
                        "    settings = ",
                "path": "main.py", "max_tokens": 200,
            })
            at_line = await client.call_tool("context_for_code", {
                "path": "src/settings/loader.py", "line": 25, "max_tokens": 200})
            assert not at_line.is_error, text_of(at_line.content)
            assert not cursor.is_error, text_of(cursor.content)
            assert cursor.structured_content is not None
            assert cursor.structured_content["tokens"] <= 200
            assert "def load_config(path: Path) -> dict[str, Any]:" in text_of(cursor.content)
            assert any(b["path"] == str(loader) for b in cursor.structured_content["blocks"])

            status = await client.call_tool("list_collections", {})
            assert status.structured_content is not None
            (demo,) = status.structured_content["collections"]
            assert (demo["name"], demo["stale"], demo["files"]) == ("demo-repo", False, 5)

            wrong = await client.call_tool("search", {"query": "x", "collection": "nope"})
            assert wrong.is_error
            assert "no collection named 'nope'" in text_of(wrong.content)
            assert "demo-repo" in text_of(wrong.content)  # the message lists what exists

    asyncio.run(session())


def test_stdio_server_starts_and_answers_on_an_empty_store(tmp_path: Path) -> None:
    """The background warm-up has nothing to load: the server starts all the same."""

    async def session() -> None:
        async with Client(stdio_server(tmp_path / "empty"),
                          read_timeout_seconds=REQUEST_TIMEOUT_S) as client:
            listed = await client.call_tool("list_collections", {})
            assert not listed.is_error and listed.structured_content == {
                "collections": [], "unreadable": {}}
            found = await client.call_tool("search", {"query": "anything"})
            assert found.is_error and "embedstore index PATH" in text_of(found.content)

    asyncio.run(session())


@pytest.mark.slow
def test_stdio_server_answers_what_it_read_before_stdin_ended(demo_store: Path) -> None:
    """A script writes its requests and closes stdin (`printf ... | embedstore mcp`): each
    request still gets its answer before the server exits (the SDK dropped the search's)."""
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "script", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "search", "arguments": {"query": "merge settings with defaults", "k": 3}}},
    ]
    server = stdio_server(demo_store)
    done = subprocess.run(
        [server.command, *server.args], input="".join(json.dumps(r) + "\n" for r in requests),
        capture_output=True, text=True, env=server.env, timeout=START_TIMEOUT_S, check=True,
    )
    replies = {reply["id"]: reply for reply in map(json.loads, done.stdout.splitlines())}
    assert set(replies) == {1, 2}
    answer = replies[2]["result"]
    assert not answer.get("isError") and "deep_merge" in answer["content"][0]["text"]
