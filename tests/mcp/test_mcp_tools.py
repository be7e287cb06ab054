"""The MCP tools through the SDK's own client, in-process: which collection, errors,
freshness. Real SQLite and FAISS, the fake encoder; stdio and HTTP with the real model
are in test_mcp_stdio.py and test_mcp_http.py."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from embedstore.api.mcp_server import build_mcp_server
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.code_context import MAX_CODE_CHARS
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


def test_search_answers_with_fields_and_one_compact_text(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))

    result = call(store, "search", {"query": "merge defaults config", "k": 1,
                                    "language": ["python"]})

    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    hit = result.structured_content["results"][0]
    assert (hit["path"], hit["start_line"], hit["end_line"], hit["symbol"], hit["shown"]) == (
        str(repo / "config.py"), 1, 3, "load_config", [[1, 3]]
    )
    assert text_of(result).startswith(f"1. {repo / 'config.py'}:1-3  load_config")
    assert "return merge(DEFAULTS, read(path))" in text_of(result)
    # The code is in the text alone: the structured content holds fields, not a second copy.
    assert "merge(DEFAULTS" not in json.dumps(result.structured_content)


def test_search_shows_a_long_definitions_signature_and_matched_lines_not_its_body(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    """Issue 31: one hit was a whole 31K-character class, and every hit came twice."""
    root = tmp_path / "long"
    root.mkdir()
    filler = "".join(f"    step_{i} = compute_step({i})\n" for i in range(600))
    (root / "pipeline.py").write_text(
        f"def run_pipeline(config):\n    \"\"\"Run every stage.\"\"\"\n{filler}"
        "    flush_the_write_ahead_log(config)\n    return step_1\n"
    )
    store = Store()
    index_folder(store, root, IndexOptions(name="long", encoder=FAKE_SPEC))

    found = call(store, "search", {"query": "flush_the_write_ahead_log", "mode": "lexical"})
    whole = call(store, "search", {"query": "flush_the_write_ahead_log", "mode": "lexical",
                                   "include_code": True, "max_tokens": 20_000})
    cut = call(store, "search", {"query": "flush_the_write_ahead_log", "mode": "lexical",
                                 "include_code": True, "max_tokens": 600})

    assert found.structured_content is not None
    hit = found.structured_content["results"][0]
    assert hit["shown"][0] == [1, 1]  # the signature, then the piece that matched
    assert hit["shown"][-1][0] >= hit["match_start_line"] > 100
    assert "def run_pipeline(config):" in text_of(found)
    assert "lines 2-" in text_of(found) and "not shown" in text_of(found)
    assert len(text_of(found)) < 3000
    assert whole.structured_content is not None
    assert whole.structured_content["results"][0]["shown"] == [[1, 604]]
    assert "flush_the_write_ahead_log(config)" in text_of(whole)
    assert cut.structured_content is not None and cut.structured_content["tokens"] <= 600
    shown = cut.structured_content["results"][0]["shown"]
    assert shown[0][0] == 1 and shown[-1][1] < 604
    assert f"lines {shown[-1][1] + 1}-604 not shown" in text_of(cut)


def test_no_search_reply_is_over_its_budget_and_what_is_left_out_is_said(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for i in range(12):
        body = "".join(f"    value_{j} = handle_request_{i}({j})\n" for j in range(40))
        (root / f"handler_{i}.py").write_text(f"def handle_request_{i}(request):\n{body}")
    store = Store()
    index_folder(store, root, IndexOptions(name="many", encoder=FAKE_SPEC))

    for budget in (200, 500, 2000):
        result = call(store, "search", {"query": "handle request value", "k": 12,
                                        "mode": "lexical", "max_tokens": budget})
        assert not result.is_error, text_of(result)
        reply = result.structured_content
        assert reply is not None
        sent = json.dumps(reply, separators=(",", ":"))
        assert reply["tokens"] <= budget
        assert (len(text_of(result)) + len(sent)) / 3 <= budget
        assert len(reply["results"]) + reply["omitted"] == 12
        if reply["omitted"]:
            assert f"{reply['omitted']} more hit" in text_of(result)
    assert call(store, "search", {"query": "x", "max_tokens": 199}).is_error


def test_search_covers_every_collection_unless_one_is_named(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))
    cursor = {"code": "from config import load_config\n"}
    assert not call(store, "context_for_code", cursor).is_error
    index_folder(store, repo, IndexOptions(name="other", encoder=FAKE_SPEC))

    everywhere = call(store, "search", {"query": "fetch page"})
    named = call(store, "search", {"query": "fetch page", "collection": "other"})
    status = call(store, "context_for_code", cursor)

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
    assert {h["path"] for h in result.structured_content["results"]} == {str(repo / "net.go")}


def test_an_empty_store_says_what_to_do(fake_encoder: FakeEncoder) -> None:
    result = call(Store(), "context", {"query": "anything"})
    assert result.is_error and "embedstore index PATH" in text_of(result)
    listed = call(Store(), "list_collections", {})
    assert not listed.is_error and listed.structured_content == {
        "collections": [], "unreadable": {}
    }


def test_list_collections_tells_when_files_changed_for_all_or_one(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))
    fresh = call(store, "list_collections", {"collection": "code"})
    assert fresh.structured_content is not None
    (status,) = fresh.structured_content["collections"]
    assert status["stale"] is False and status["files"] == 2 and status["indexed_at"]
    assert status["source_root"] == str(repo)

    (repo / "new.py").write_text("def added():\n    pass\n")
    (repo / "net.go").unlink()
    one = call(store, "list_collections", {"collection": "code"})
    listed = call(store, "list_collections", {})

    assert one.structured_content is not None and listed.structured_content is not None
    assert one.structured_content == listed.structured_content
    (stale,) = listed.structured_content["collections"]
    assert (stale["stale"], stale["added"], stale["removed"]) == (True, 1, 1)
    assert "STALE: 1 added, 1 removed, 0 modified since" in text_of(one)
    missing = call(store, "list_collections", {"collection": "nope"})
    assert missing.is_error and "no collection named 'nope'" in text_of(missing)


def test_context_packs_within_the_budget_under_absolute_paths(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))

    result = call(store, "context", {"query": "merge defaults config", "max_tokens": 60})

    assert not result.is_error, text_of(result)
    packed = result.structured_content
    assert packed is not None and 0 < packed["tokens"] <= 60
    assert packed["blocks"][0] == {"path": str(repo / "config.py"), "ranges": [[1, 3]]}
    assert text_of(result).startswith(f"{repo / 'config.py'}:1-3\n")
    assert "text" not in packed  # the packed code comes once, as the text


def test_tools_are_annotated_read_only_with_descriptions_an_agent_reads(
    fake_encoder: FakeEncoder
) -> None:
    tools = with_client(Store(), lambda client: client.list_tools()).tools

    assert {t.name for t in tools} == {"search", "context", "context_for_code",
                                       "list_collections"}
    for tool in tools:
        assert tool.annotations is not None
        assert (tool.annotations.read_only_hint, tool.annotations.destructive_hint,
                tool.annotations.idempotent_hint) == (True, False, True)
        assert tool.description and not any(
            line.startswith(" ") for line in tool.description.split("\n")), tool.description
        assert tool.input_schema["additionalProperties"] is False


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("search", {"query": "x", "colection": "code"},
         "search takes no argument 'colection' (did you mean 'collection'?)"),
        ("context", {"query": "x", "budget": 3}, "context takes no argument 'budget'; it takes "
         "query, max_tokens"),
        ("search", {"query": "x", "collection": ""}, "collection is empty"),
        ("context", {"query": "x", "collection": " "}, "collection is empty"),
        ("context_for_code", {"code": "x", "collection": ""}, "collection is empty"),
        ("list_collections", {"collection": ""}, "collection is empty"),
    ],
    ids=["misspelt", "unknown", "empty-search", "blank-context", "empty-cursor", "empty-list"],
)
def test_unknown_arguments_and_an_empty_collection_are_refused(
    repo: Path, fake_encoder: FakeEncoder, tool: str, arguments: dict[str, Any], message: str
) -> None:
    """Issue 30, G13: both were taken silently, as every collection."""
    store = Store()
    index_folder(store, repo, IndexOptions(name="code", encoder=FAKE_SPEC))
    index_folder(store, repo, IndexOptions(name="other", encoder=FAKE_SPEC))

    result = call(store, tool, arguments)

    assert result.is_error
    assert message in text_of(result) and "\n" not in text_of(result), text_of(result)


def test_context_for_code_reads_the_cursor_from_a_file_and_line(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = tmp_path / "app"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "config.py").write_text(
        "def load_config(path):\n    \"\"\"Parse the config file.\"\"\"\n    return {}\n")
    (root / "main.py").write_text(
        "from pkg.config import load_config\n\n\ndef main():\n    settings = load_config(1)\n")
    store = Store()
    index_folder(store, root, IndexOptions(name="app", encoder=FAKE_SPEC))

    by_line = call(store, "context_for_code", {"path": "main.py", "line": 5})
    absolute = call(store, "context_for_code", {"path": str(root / "main.py"), "line": 5})
    by_code = call(store, "context_for_code", {
        "code": "from pkg.config import load_config\n\n\ndef main():\n",
        "code_after": "    settings = load_config(1)\n", "path": "main.py"})

    assert not by_line.is_error, text_of(by_line)
    assert by_line.structured_content is not None
    assert by_line.structured_content["blocks"][0]["path"] == str(root / "pkg" / "config.py")
    assert "def load_config(path):" in text_of(by_line)
    assert text_of(by_line).startswith(f"{root / 'pkg' / 'config.py'}:")
    assert text_of(absolute) == text_of(by_line) == text_of(by_code)


def test_context_for_code_lays_out_a_completion_models_prompt(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = tmp_path / "app"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "config.py").write_text("def load_config(path):\n    return {}\n")
    (root / "main.py").write_text("from pkg.config import load_config\n\nx = load_config(1)\n")
    store = Store()
    index_folder(store, root, IndexOptions(name="app", encoder=FAKE_SPEC))

    qwen = call(store, "context_for_code", {"path": "main.py", "line": 3, "format": "qwen"})
    infill = call(store, "context_for_code",
                  {"path": "main.py", "line": 3, "format": "llama-infill"})

    assert not qwen.is_error, text_of(qwen)
    assert text_of(qwen).startswith("<|repo_name|>app\n<|file_sep|>pkg/config.py\n"
                                    "def load_config(path):")
    assert text_of(qwen).endswith(
        "<|file_sep|>main.py\n<|fim_prefix|>from pkg.config import load_config\n\n"
        "<|fim_suffix|>x = load_config(1)\n<|fim_middle|>")
    assert qwen.structured_content is not None  # blocks still name files absolutely
    assert qwen.structured_content["blocks"][0]["path"] == str(root / "pkg" / "config.py")
    body = json.loads(text_of(infill))
    assert body["input_prefix"] == "from pkg.config import load_config\n\n"
    assert body["input_extra"][0]["filename"] == "pkg/config.py"


def test_context_for_code_takes_a_column_for_a_cursor_mid_line(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    """An editor's cursor mid-line (after `cfg.`): the typed part of the line is code before
    the cursor, and the access it ends in puts the held class's members first."""
    root = tmp_path / "app"
    (root / "pkg").mkdir(parents=True)
    methods = "".join(f"    def option_{i}(self):\n        return {i}\n\n" for i in range(40))
    (root / "pkg" / "helpers.py").write_text(
        "".join(f"def helper_{i}(x):\n    return x + {i}\n\n" for i in range(40)))
    (root / "pkg" / "config.py").write_text(f"class Config:\n{methods}")
    (root / "main.py").write_text(
        "from pkg.config import Config\nfrom pkg.helpers import *\n\n"
        "cfg = Config()\nhelper_1(1)\nn = cfg.option_7()\n")
    store = Store()
    index_folder(store, root, IndexOptions(name="app", encoder=FAKE_SPEC))

    def answer(column: int, **more: Any) -> Any:
        result = call(store, "context_for_code",
                      {"path": "main.py", "line": 6, "column": column, **more})
        assert not result.is_error, text_of(result)
        return result

    infill = json.loads(text_of(answer(9, format="llama-infill")))
    mid_line = text_of(answer(9, max_tokens=120))

    assert infill["input_prefix"].endswith("helper_1(1)\nn = cfg.")
    assert infill["input_suffix"].startswith("option_7()\n")
    assert mid_line.startswith(f"{root / 'pkg' / 'config.py'}:")
    assert "class Config:" in mid_line and "def helper_" not in mid_line
    # At the line's start the next line may call anything: the helpers used above lead.
    assert text_of(answer(1, max_tokens=120)).startswith(f"{root / 'pkg' / 'helpers.py'}:")

    refused = call(store, "context_for_code", {"path": "main.py", "line": 6, "column": 99})
    assert refused.is_error
    assert text_of(refused).endswith(
        "column 99 is past the end of line 6 of 'main.py' (18 characters)")
    alone = call(store, "context_for_code", {"code": "x", "column": 2})
    assert alone.is_error and "column goes with path and line" in text_of(alone)


def test_context_for_code_reads_only_regular_files_inside_the_collections_folder(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = tmp_path / "app"
    root.mkdir()
    (root / "main.py").write_text("import os\n")
    (tmp_path / "secret.py").write_text("password = 1\n")
    (root / "link.py").symlink_to(tmp_path / "secret.py")
    os.mkfifo(root / "pipe.py")
    store = Store()
    index_folder(store, root, IndexOptions(name="app", encoder=FAKE_SPEC))

    def refused(arguments: dict[str, Any]) -> str:
        result = call(store, "context_for_code", arguments)
        assert result.is_error, text_of(result)
        assert "\n" not in text_of(result)
        return text_of(result)

    assert "is not inside 'app''s folder" in refused({"path": "../secret.py", "line": 1})
    assert "is not inside" in refused({"path": str(tmp_path / "secret.py"), "line": 1})
    assert "is not inside" in refused({"path": "link.py", "line": 1})
    assert "'pipe.py' is not a regular file" in refused({"path": "pipe.py", "line": 1})
    assert "'.' is not a regular file" in refused({"path": ".", "line": 1})
    assert "cannot read 'gone.py'" in refused({"path": "gone.py", "line": 1})
    assert "line 9 is past the end of 'main.py' (1 line)" in refused({"path": "main.py",
                                                                       "line": 9})
    assert "line goes with path" in refused({"line": 1})
    assert "either code (and code_after) or path and line" in refused(
        {"code": "x", "path": "main.py", "line": 1})
    assert "give the code before the cursor" in refused({"path": "main.py"})
    with open(root / "big.py", "wb") as fh:
        fh.truncate(MAX_CODE_CHARS + 1)
    assert "code-at-cursor reads at most" in refused({"path": "big.py", "line": 1})
    assert not call(store, "context_for_code", {"path": "main.py", "line": 2}).is_error


def test_an_all_collections_answer_names_a_damaged_collection_and_answers_from_the_rest(
    repo: Path, fake_encoder: FakeEncoder
) -> None:
    """Issue 30, G4: one damaged collection made every all-collections call fail."""
    store = Store()
    for name in ("broken", "code"):
        index_folder(store, repo, IndexOptions(name=name, encoder=FAKE_SPEC))
    with open(store.root / "broken" / "meta.sqlite", "r+b") as fh:
        fh.write(b"\xde\xad\xbe\xef" * 4)

    found = call(store, "search", {"query": "merge defaults config"})
    packed = call(store, "context", {"query": "merge defaults config"})

    for result in (found, packed):
        assert not result.is_error, text_of(result)
        assert result.structured_content is not None
        (skipped,) = result.structured_content["skipped"]
        assert skipped["collection"] == "broken" and "embedstore rm broken" in skipped["reason"]
        assert "Skipped collection 'broken':" in text_of(result)
    assert found.structured_content is not None
    assert found.structured_content["collections"] == ["code"]
    assert {h["collection"] for h in found.structured_content["results"]} == {"code"}
    assert str(repo / "config.py") in text_of(packed)
