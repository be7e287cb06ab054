"""A member that ranks above its own class shows the class's header line on every face:
the CLI's text and JSON, REST and MCP (issue 33). Lexical mode, so the order is the
tokens', not the fake encoder's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from embedstore.api.app import create_app
from embedstore.api.settings import ServerSettings
from embedstore.cli.app import app
from embedstore.store.store import Store
from tests.fakes import FakeEncoder, index_with_fake
from tests.mcp.test_mcp_tools import call, text_of

# Bodies long enough that the class is outlined and each method is a unit of its own.
BODY = "".join(f"        self.step_{n} = step_{n}(self)\n" for n in range(40))
SOURCE = f'''class PreparedRequest:
    """A request whose headers and body are prepared for sending."""

    def prepare_headers(self, headers):
        """Prepares the given HTTP headers."""
        self.headers = dict(headers)
{BODY}
    def prepare_body(self, data):
        """Prepares the given HTTP body data."""
        self.body = data
{BODY}

def unrelated():
    """Counts the sheep."""
    return 3
'''
QUERY = "prepares the given HTTP headers"
HEADER = "class PreparedRequest:"


@pytest.fixture
def store(tmp_path: Path, fake_encoder: FakeEncoder) -> Path:
    return index_with_fake(tmp_path, "repo", {"models.py": SOURCE})


def cli(store: Path, *args: str) -> str:
    result = CliRunner().invoke(app, ["search", QUERY, "--mode", "lexical", "--store",
                                      str(store), *args])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_the_cli_shows_the_class_a_member_lives_in(store: Path) -> None:
    hits = json.loads(cli(store, "--json"))["results"]
    symbols = [h["symbol"] for h in hits]
    # The method first; its class after it, with no header of its own.
    assert symbols.index("PreparedRequest.prepare_headers") < symbols.index("PreparedRequest")
    owners = {h["symbol"]: h["owner_header"] for h in hits}
    assert owners["PreparedRequest.prepare_headers"] == HEADER
    assert owners["PreparedRequest"] is None
    head = next(line for line in cli(store).splitlines() if "prepare_headers" in line)
    assert head.startswith("1. ") and head.rstrip().endswith(f"in {HEADER}")


def test_rest_and_mcp_carry_the_class_header(store: Path) -> None:
    with TestClient(create_app(ServerSettings(store=store, preload_model=False))) as client:
        body = client.post("/v1/collections/repo/search",
                           json={"query": QUERY, "mode": "lexical"}).json()
    top = body["results"][0]
    assert (top["symbol"], top["owner_header"]) == ("PreparedRequest.prepare_headers", HEADER)

    reply = call(Store(store), "search", {"query": QUERY, "mode": "lexical"})
    assert reply.structured_content is not None
    assert reply.structured_content["results"][0]["owner_header"] == HEADER
    assert text_of(reply).splitlines()[0].endswith(f"in {HEADER}")
