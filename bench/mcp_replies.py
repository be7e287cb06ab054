"""What the MCP `search` tool costs an agent: reply sizes at k=10, and time to a first answer.

    python bench/mcp_replies.py [--repo /work/data/val/flask] [--store DIR]

Indexes ``--repo`` with the default model into a temporary store (or uses ``--store``),
then over the SDK's own client:

- reply sizes: 20 queries at k=10 with the default budget, through the server of this
  tree and through the one before issue 31 (``api/mcp_server.py`` at BEFORE, loaded
  from git), each reply measured as text plus structured content (compact JSON, as
  sent): characters, the estimate the budget counts (characters / 3), cl100k tokens
  (a coding model's BPE) and the encoder's WordPiece tokens;
- time to a first answer: `embedstore mcp` started on stdio, the clock from the spawn
  to the first `search` answer, and that call alone, 3 starts each for both servers
  (the old one started through the same CLI entry with its own build function).

Writes bench/results/mcp.{json,md}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent

from embedstore.api.mcp_replies import CHARS_PER_TOKEN
from embedstore.api.mcp_server import build_mcp_server
from embedstore.encoders.registry import load_encoder
from embedstore.ingest.indexer import index_folder
from embedstore.retrieval.tokenizers import load_tokenizer
from embedstore.store.store import Store

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# The last commit before issue 31's MCP changes.
BEFORE = "b449585"
K = 10
STARTS = 3
PAUSE_S = 5.0
QUERIES = [
    "render a template with context", "register a blueprint on the application",
    "handle a 404 error with a custom page", "load configuration from environment variables",
    "sign the session cookie", "match a URL rule to a view function",
    "send a file from a directory safely", "push an application context",
    "run a function before each request", "serialize a response as JSON",
    "stream a response generator", "build a URL for an endpoint", "abort with an HTTP error",
    "test client for making requests", "command line interface to run the server",
    "parse the request body as JSON", "flash a message to the next request",
    "redirect to another URL", "teardown the request context", "static files route",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", type=Path, default=Path("/work/data/val/flask"))
    parser.add_argument("--store", type=Path, help="a store holding the repository already")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(args.store or Path(tmp) / "store")
        if not store.names():
            index_folder(store, args.repo)
        old_module = Path(tmp) / "mcp_server_before.py"
        old_module.write_text(subprocess.run(
            ["git", "show", f"{BEFORE}:api/mcp_server.py"], cwd=ROOT, check=True,
            capture_output=True, text=True).stdout)
        results = {
            "repo": str(args.repo), "k": K, "queries": len(QUERIES),
            "chars_per_token": CHARS_PER_TOKEN,
            "sizes": {"after": sizes(lambda: build_mcp_server(store)),
                      "before": sizes(lambda: _old_build(old_module)(store))},
            "first_answer": {"after": starts(store.root, None),
                             "before": starts(store.root, old_module)},
        }
    (HERE / "results" / "mcp.json").write_text(json.dumps(results, indent=2) + "\n")
    (HERE / "results" / "mcp.md").write_text(report(results))
    print(report(results))


def _old_build(module: Path) -> Callable[[Store], MCPServer]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("mcp_server_before", module)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules["mcp_server_before"] = loaded  # its type hints resolve through it
    spec.loader.exec_module(loaded)
    build: Callable[[Store], MCPServer] = loaded.build_mcp_server
    return build


def sizes(build: Callable[[], MCPServer]) -> dict[str, Any]:
    cl100k = load_tokenizer("cl100k_base")
    wordpiece = load_encoder(None).count_tokens

    async def run() -> list[CallToolResult]:
        async with Client(build()) as client:
            return [await client.call_tool("search", {"query": q, "k": K}) for q in QUERIES]

    rows = []
    for query, reply in zip(QUERIES, asyncio.run(run()), strict=True):
        assert not reply.is_error, reply.content
        block = reply.content[0]
        assert isinstance(block, TextContent)
        sent = json.dumps(reply.structured_content, separators=(",", ":"))
        rows.append({
            "query": query, "hits": len((reply.structured_content or {})["results"]),
            "text_chars": len(block.text), "structured_chars": len(sent),
            "estimate": -(-(len(block.text) + len(sent)) // CHARS_PER_TOKEN),
            "cl100k": sum(cl100k([block.text, sent])),
            "wordpiece": sum(n - 2 for n in wordpiece([block.text, sent])),
        })
    return {"rows": rows, **{
        f"{field}_{stat}": fn([r[field] for r in rows])
        for field in ("text_chars", "structured_chars", "estimate", "cl100k", "wordpiece",
                      "hits")
        for stat, fn in (("median", statistics.median), ("max", max))
    }}


def starts(store: Path, old_module: Path | None) -> dict[str, Any]:
    """Seconds from spawning the server to its first search answer, and of that call; and of
    a first call made PAUSE_S after the handshake, as an agent's that reads the tool list and
    thinks first."""
    if old_module is None:
        command = [sys.executable, "-m", "embedstore", "mcp", "--store", str(store)]
    else:
        command = [sys.executable, "-c",
                   "import sys, importlib.util; from embedstore.store.store import Store\n"
                   f"spec = importlib.util.spec_from_file_location('old', {str(old_module)!r})\n"
                   "m = importlib.util.module_from_spec(spec); sys.modules['old'] = m\n"
                   "spec.loader.exec_module(m)\n"
                   f"m.build_mcp_server(Store({str(store)!r})).run('stdio')"]

    async def one(pause: float) -> tuple[float, float]:
        began = time.perf_counter()
        server = StdioServerParameters(command=command[0], args=command[1:],
                                       env={**os.environ, "HF_HUB_OFFLINE": "1"})
        async with Client(server, read_timeout_seconds=300) as client:
            await asyncio.sleep(pause)
            called = time.perf_counter()
            reply = await client.call_tool("search", {"query": QUERIES[0], "k": K})
            done = time.perf_counter()
            assert not reply.is_error, reply.content
        return done - began, done - called

    runs = [asyncio.run(one(0)) for _ in range(STARTS)]
    paused = [asyncio.run(one(PAUSE_S)) for _ in range(STARTS)]
    return {"from_start_s": [round(a, 2) for a, _ in runs],
            "first_call_s": [round(b, 2) for _, b in runs],
            "first_call_after_pause_s": [round(b, 2) for _, b in paused]}


def report(r: dict[str, Any]) -> str:
    a, b = r["sizes"]["after"], r["sizes"]["before"]
    fa, fb = r["first_answer"]["after"], r["first_answer"]["before"]

    def row(name: str, field: str) -> str:
        return (f"| {name} | {b[field + '_median']:,} / {b[field + '_max']:,} | "
                f"{a[field + '_median']:,} / {a[field + '_max']:,} |")

    def med(values: list[float]) -> str:
        return f"{statistics.median(values):.2f} s ({', '.join(f'{v:.2f}' for v in values)})"

    return "\n".join([
        "# MCP `search` replies and time to a first answer (bench/mcp_replies.py)",
        "",
        f"{r['queries']} queries at k={r['k']} over `{r['repo']}` (the default model), the "
        "default budget (max_tokens 2,000, estimated at "
        f"{r['chars_per_token']} characters a token). A reply is its text plus its structured "
        "content as compact JSON. Before: `api/mcp_server.py` at "
        f"{BEFORE}, loaded from git; after: this tree.",
        "",
        "| per reply (median / max) | before | after |",
        "| --- | --- | --- |",
        row("hits shown", "hits"),
        row("text characters", "text_chars"),
        row("structured characters", "structured_chars"),
        row("estimated tokens (the budget's measure)", "estimate"),
        row("cl100k tokens", "cl100k"),
        row("encoder WordPiece tokens", "wordpiece"),
        "",
        f"Replies over the budget after: {sum(x['estimate'] > 2000 for x in a['rows'])} of "
        f"{len(a['rows'])} by the estimate, {sum(x['cl100k'] > 2000 for x in a['rows'])} by "
        f"cl100k; cl100k / estimate: at most "
        f"{max(x['cl100k'] / x['estimate'] for x in a['rows']):.2f}.",
        "",
        f"Time to a first answer over stdio, {len(fa['from_start_s'])} starts each (median, "
        "runs), the store's ONNX export already made; a 2-core machine shared with other "
        f"work (load average {os.getloadavg()[0]:.1f} at the end):",
        "",
        "| | before | after |",
        "| --- | --- | --- |",
        f"| spawn to first `search` answer | {med(fb['from_start_s'])} | "
        f"{med(fa['from_start_s'])} |",
        f"| the first call alone, made at once after the handshake | {med(fb['first_call_s'])} | "
        f"{med(fa['first_call_s'])} |",
        f"| the first call alone, made {PAUSE_S:.0f} s after the handshake | "
        f"{med(fb['first_call_after_pause_s'])} | {med(fa['first_call_after_pause_s'])} |",
        "",
    ])


if __name__ == "__main__":
    main()
