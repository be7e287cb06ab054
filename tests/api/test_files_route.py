"""GET /v1/collections/{name}/files/{path} and /examples: a file's indexed text and example
queries from the collection's definitions (fake encoder)."""

from __future__ import annotations

import re
import shutil
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from embedstore.api.app import create_app
from embedstore.api.routes.files import _description
from embedstore.api.settings import ServerSettings
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.api.conftest import error_of
from tests.fakes import FAKE_SPEC, FakeEncoder

STDLIB = Path(sysconfig.get_paths()["stdlib"])
KEY = "files-test-key"
NOTE = "# Notes\n\nA document pushed by id,\nits text kept whole.\n"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "lib"
    (root / "docs").mkdir(parents=True)
    for name in ("shlex.py", "fnmatch.py"):
        shutil.copy(STDLIB / name, root / name)
    (root / "docs" / "guide.md").write_text("# Guide\n\nRead tokens.\n\n\n## More\n\nText.\n")
    return root


@pytest.fixture
def client(tmp_path: Path, repo: Path, fake_encoder: FakeEncoder) -> Iterator[TestClient]:
    store = Store(tmp_path / "store")
    index_folder(store, repo, IndexOptions(name="lib", encoder=FAKE_SPEC))
    settings = ServerSettings(store=store.root, preload_model=False, api_keys=[KEY])
    with TestClient(create_app(settings), headers={"Authorization": f"Bearer {KEY}"}) as c:
        c.post("/v1/collections", json={"name": "notes", "encoder": FAKE_SPEC})
        c.post("/v1/collections/notes/documents", json={"documents": [
            {"id": "n1", "text": NOTE, "path": "notes/n1.md"},
        ]})
        yield c


@pytest.mark.parametrize("name", ["shlex.py", "fnmatch.py", "docs/guide.md"])
def test_a_folder_file_comes_back_as_indexed_blank_lines_included(
    client: TestClient, repo: Path, name: str
) -> None:
    response = client.get(f"/v1/collections/lib/files/{name}")
    assert response.status_code == 200, response.text
    body = response.json()
    real = (repo / name).read_text()
    # Only blank lines lie outside every definition: the rebuilt text is the file.
    assert body == {"path": name, "language": body["language"], "text": real,
                    "lines": real.count("\n")}
    assert body["language"] == ("markdown" if name.endswith(".md") else "python")


def test_a_hit_range_is_those_lines_of_the_file(client: TestClient) -> None:
    hit = client.post("/v1/collections/lib/search", json={
        "query": "read_token", "k": 1, "mode": "lexical"}).json()["results"][0]
    text = client.get(f"/v1/collections/lib/files/{hit['path']}").json()["text"]
    lines = text.split("\n")[hit["start_line"] - 1 : hit["end_line"]]
    assert "\n".join(lines) == hit["text"]


def test_highlight_gives_one_html_line_per_line_of_the_text(client: TestClient) -> None:
    body = client.get("/v1/collections/lib/files/docs/guide.md?highlight=true").json()
    text_lines = body["text"].split("\n")[:-1]
    assert len(body["html_lines"]) == len(text_lines) == body["lines"]
    assert [re.sub(r"<[^>]+>", "", html) for html in body["html_lines"]] == text_lines
    python = client.get("/v1/collections/lib/files/shlex.py?highlight=true").json()
    assert '<span class="k">def</span>' in "".join(python["html_lines"])
    # A docstring spans lines, yet each line closes what it opens.
    assert all(html.count("<span") == html.count("</span>") for html in python["html_lines"])


def test_a_document_comes_back_whole(client: TestClient) -> None:
    body = client.get("/v1/collections/notes/files/notes/n1.md").json()
    assert body == {"path": "notes/n1.md", "language": "markdown", "text": NOTE, "lines": 4}


def test_unknown_paths_collections_and_missing_keys(client: TestClient) -> None:
    assert error_of(client.get("/v1/collections/lib/files/nope.py")) == (
        404, "not_found", "no file 'nope.py' in collection 'lib'")
    # A path is looked up among the indexed files, never on the server's disk.
    assert client.get("/v1/collections/lib/files/../lib/shlex.py").status_code == 404
    assert client.get("/v1/collections/lib/files/%2Fetc%2Fpasswd").status_code == 404
    assert error_of(client.get("/v1/collections/ghost/files/shlex.py"))[:2] == (404, "not_found")
    for path in ("/v1/collections/lib/files/shlex.py", "/v1/collections/lib/examples"):
        assert client.get(path, headers={"Authorization": ""}).status_code == 401


def test_openapi_declares_both_routes_with_their_errors(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    files = paths["/v1/collections/{name}/files/{path}"]["get"]
    examples = paths["/v1/collections/{name}/examples"]["get"]
    for operation in (files, examples):
        assert {"200", "401", "404"} <= set(operation["responses"])
        assert operation["security"] == [{"bearerAuth": []}]
    schema = files["responses"]["200"]["content"]["application/json"]["schema"]
    assert schema == {"$ref": "#/components/schemas/FileText"}


def test_examples_come_from_the_collection(client: TestClient) -> None:
    body = client.get("/v1/collections/lib/examples").json()
    assert body["collection"] == "lib"
    examples = body["examples"]
    kinds = [e["kind"] for e in examples]
    assert kinds == sorted(kinds)  # descriptions first, then symbols
    assert 1 <= kinds.count("description") <= 3 and 1 <= kinds.count("symbol") <= 3
    assert {e["path"] for e in examples} <= {"shlex.py", "fnmatch.py"}
    source = (STDLIB / "shlex.py").read_text() + (STDLIB / "fnmatch.py").read_text()
    for example in examples:
        if example["kind"] == "symbol":
            assert f"def {example['query']}(" in source or f"class {example['query']}" in source
        else:
            assert len(example["query"].split()) >= 3
    assert not {"parse the config file and merge defaults", "read_token"} & {
        e["query"] for e in examples if e["kind"] == "description"}
    # A collection without definitions (one Markdown document) has none to offer.
    assert client.get("/v1/collections/notes/examples").json()["examples"] == []


@pytest.mark.parametrize(("doc", "query"), [
    ("Split the string *s* using shell-like syntax.", "split the string s using shell-like syntax"),
    ("Return the :func:`os.path` of ``name``. More text.", "return the os.path of name"),
    ("HTTP client for the API", "HTTP client for the API"),
    ("Too short.", None),
    ("", None),
])
def test_a_documentation_line_becomes_a_query(doc: str, query: str | None) -> None:
    assert _description(doc) == query
