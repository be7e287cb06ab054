"""Where a document's hit is, on every face: the CLI's text, JSON and vimgrep lines, the REST
API's `location` and `anchor`, MCP's `location`, and the file route serving the PDF itself.
Real SQLite and FAISS, the fake encoder."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from mcp import Client
from typer.testing import CliRunner

from embedstore.api.app import create_app
from embedstore.api.mcp_server import build_mcp_server
from embedstore.api.settings import ServerSettings
from embedstore.cli.app import app
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.chunking.readers.make_pdf import make_pdf
from tests.fakes import FAKE_SPEC, FakeEncoder

MANUAL = make_pdf(
    [["Introduction", "This manual explains the frobnicator."],
     ["Mangling", "Private attribute names are mangled with the class name."]],
    outline=[(0, "Introduction", 0), (0, "Mangling", 1)],
)
QUERY = "mangled attribute names"


@pytest.fixture
def folder(tmp_path: Path, fake_encoder: FakeEncoder) -> Path:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "manual.pdf").write_bytes(MANUAL)
    (root / "tool.py").write_text("def frobnicate(x):\n    return x * 2\n")
    index_folder(Store(), root, IndexOptions(name="docs", encoder=FAKE_SPEC))
    return root


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, ["search", QUERY, "-k", "1", "--mode", "lexical", *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_the_cli_shows_the_page(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder)
    assert cli().splitlines()[0].startswith("1. manual.pdf#page=2  score ")
    (hit,) = json.loads(cli("--json"))["results"]
    assert hit["location"] == "manual.pdf#page=2"
    line = cli("--format", "vimgrep").strip()
    assert line.startswith("manual.pdf:") and ":1:#page=2 " in line


def test_rest_and_mcp_hits_carry_their_location(folder: Path, tmp_path: Path) -> None:
    with TestClient(create_app(ServerSettings(preload_model=False))) as client:
        (hit,) = client.post("/v1/collections/docs/search",
                             json={"query": QUERY, "k": 1, "mode": "lexical"}).json()["results"]
        assert (hit["location"], hit["anchor"]) == ("manual.pdf#page=2", "page=2")
        (code,) = client.post("/v1/collections/docs/search",
                              json={"query": "frobnicate", "k": 1, "mode": "lexical",
                                    "filters": {"languages": ["python"]}}).json()["results"]
        assert (code["location"], code["anchor"]) == ("tool.py:1-2", None)

        raw = client.get("/v1/collections/docs/files/manual.pdf", params={"raw": "true"})
        assert raw.status_code == 200 and raw.content == MANUAL
        assert raw.headers["content-type"] == "application/pdf"
        # Only a file the collection indexed, inside its folder.
        (folder.parent / "secret.pdf").write_bytes(MANUAL)
        for path in ("../secret.pdf", "nothing.pdf"):
            missing = client.get(f"/v1/collections/docs/files/{path}", params={"raw": "true"})
            assert missing.status_code == 404

    async def talk() -> dict[str, object]:
        async with Client(build_mcp_server(Store())) as mcp:
            result = await mcp.call_tool("search", {"query": QUERY, "k": 1, "mode": "lexical"})
            assert "manual.pdf#page=2" in result.content[0].text  # type: ignore[union-attr]
            return result.structured_content or {}

    (found,) = asyncio.run(talk())["results"]  # type: ignore[misc]
    assert found["location"] == f"{folder / 'manual.pdf'}#page=2"
