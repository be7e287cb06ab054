"""MCP over streamable HTTP at /mcp of a real `embedstore serve --api-key K --watch DIR`
on 127.0.0.1: the real default model, the SDK's own client, the demo repository."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from tests.api.server import REQUEST_TIMEOUT_S, running_server

DEMO = Path(__file__).resolve().parents[2] / "examples" / "demo-repo"
KEY = "mcp-test-key"
NEW_FUNCTION = '''

def rotate_api_tokens(vault: dict[str, str]) -> None:
    """Replace every API token kept in the secrets vault with a freshly generated one."""
    for key in vault:
        vault[key] = generate_token()
'''


def mcp_call(
    url: str, tool: str, arguments: dict[str, Any], *, key: str | None = KEY,
    statuses: list[int] | None = None,
) -> CallToolResult:
    """One tool call in a session of its own; ``statuses`` collects the HTTP statuses seen."""

    async def record(response: httpx2.Response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    async def session() -> CallToolResult:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        async with httpx2.AsyncClient(
            headers=headers, timeout=60, event_hooks={"response": [record]}
        ) as http, Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            return await client.call_tool(tool, arguments)

    return asyncio.run(session())


def top_hit(url: str, query: str) -> tuple[str, str | None]:
    """The best hit's path (absolute) and symbol."""
    result = mcp_call(url, "search", {"query": query, "k": 1})
    assert not result.is_error and result.structured_content is not None, result.content
    hit = result.structured_content["results"][0]
    return hit["path"], hit["symbol"]


def wait_for_collection(url: str, name: str, timeout: float = 300) -> None:
    """The watcher indexes the folder in the background once the server runs."""
    headers = {"Authorization": f"Bearer {KEY}"}
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        listed = httpx.get(f"{url}/v1/collections", headers=headers, timeout=10).json()
        if any(c["name"] == name for c in listed):
            return
        time.sleep(0.5)
    pytest.fail(f"collection {name} did not appear")


@pytest.mark.slow
def test_mcp_over_http_needs_the_key_and_serve_watch_keeps_it_fresh(tmp_path: Path) -> None:
    repo = tmp_path / "demo-repo"
    shutil.copytree(DEMO, repo)
    with running_server(tmp_path / "store", "--api-key", KEY, "--watch", str(repo)) as server:
        url = server.url
        refused = httpx.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                             timeout=REQUEST_TIMEOUT_S)
        assert refused.status_code == 401
        assert refused.json()["error"]["code"] == "unauthorized"
        statuses: list[int] = []
        with pytest.raises(Exception):  # noqa: B017 - the SDK wraps the 401 in an exception group
            mcp_call(url, "list_collections", {}, key=None, statuses=statuses)
        assert statuses and set(statuses) == {401}
        statuses.clear()
        assert not mcp_call(url, "list_collections", {}, statuses=statuses).is_error
        assert 401 not in statuses

        wait_for_collection(url, "demo-repo")
        loader = str(repo / "src" / "settings" / "loader.py")
        assert top_hit(url, "parse the config file and merge defaults")[0] == loader
        status = mcp_call(url, "list_collections", {"collection": "demo-repo"})
        assert status.structured_content is not None
        assert status.structured_content["collections"][0]["stale"] is False

        with (repo / "src" / "settings" / "loader.py").open("a") as fh:
            fh.write(NEW_FUNCTION)
        query = "rotate the API tokens stored in the secrets vault"
        began = time.monotonic()
        while top_hit(url, query) != (loader, "rotate_api_tokens"):
            # A bound for a stuck watch, not a speed target (bench/ measures those): on a
            # loaded 2-core machine the re-index takes far longer than its usual second.
            assert time.monotonic() - began < 300, "the edit was not searchable in 5 min"
            time.sleep(0.2)
