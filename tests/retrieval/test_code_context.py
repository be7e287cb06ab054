"""Code-at-cursor context: the definitions of other files that the code at a cursor needs."""

from __future__ import annotations

from pathlib import Path

import pytest

from embedstore.chunking.symbols import extract_symbols
from embedstore.errors import UserInputError
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval import code_context, collection_view
from embedstore.retrieval.code_context import context_for_code, nearness
from embedstore.retrieval.context import RagContext
from embedstore.retrieval.filters import SearchFilters
from embedstore.store.collection import Collection
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, FakeEncoder

CLIENT = '''"""HTTP client."""

DEFAULT_TIMEOUT = 30


def fetch(url: str,
          retries: int = 3) -> bytes:
    """Download url, retrying on failure."""
    data = b""
    for _ in range(retries):
        data = url.encode()
    return data


class Session:
    """A pooled connection."""

    def get(self, url: str) -> bytes:
        """GET url."""
        return fetch(url)

    def close(self) -> None:
        return None
'''
INIT = "from .client import Session\n"
HELPERS = '''def slugify(text: str) -> str:
    """Lower-case words joined by dashes."""
    return "-".join(text.lower().split())


def unrelated_helper(value: int) -> int:
    return value * 2
'''
MAIN = '''from pkg.client import DEFAULT_TIMEOUT, fetch
from pkg import Session
from pkg.helpers import slugify


def run(url: str) -> bytes:
    title = slugify(url)
    session = Session()
'''


def read_lines(packed: RagContext) -> set[tuple[str, int]]:
    """The file lines an answer shows, those a signature joined into one line stands for too."""
    return {(b.path, n) for b in packed.blocks for n in b.lines} | {
        (b.path, n) for b in packed.blocks for first, last in b.covers.items()
        for n in range(first, last + 1)}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text(INIT)
    (root / "pkg" / "client.py").write_text(CLIENT)
    (root / "pkg" / "helpers.py").write_text(HELPERS)
    (root / "app").mkdir()
    (root / "app" / "main.py").write_text(MAIN + "    return fetch(url)\n")
    return root


def indexed(tmp_path: Path, files: dict[str, str]) -> Collection:
    """A collection of ``files`` (path -> text), with the fake encoder."""
    root = tmp_path / "small"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    store = Store(tmp_path / "store")
    index_folder(store, root, IndexOptions(name="small", encoder=FAKE_SPEC))
    return store.open("small")


@pytest.fixture
def collection(repo: Path, tmp_path: Path, fake_encoder: FakeEncoder) -> Collection:
    store = Store(tmp_path / "store")
    index_folder(store, repo, IndexOptions(name="r", encoder=FAKE_SPEC))
    return store.open("r")


def test_imported_definitions_come_as_signatures_and_the_edited_file_never(
    collection: Collection,
) -> None:
    packed = context_for_code(collection, MAIN, path="app/main.py", max_tokens=2000)
    got = read_lines(packed)
    assert ("pkg/client.py", 6) in got and ("pkg/client.py", 7) in got  # fetch's 2-line header
    assert "def fetch(url: str, retries: int = 3) -> bytes:" in packed.text.split("\n")
    assert ("pkg/client.py", 3) in got  # the imported constant
    assert ("pkg/client.py", 15) in got  # Session, reached through pkg/__init__.py
    assert ("pkg/client.py", 18) in got  # ... with its methods' signatures
    assert not any(path == "app/main.py" for path, _ in got)
    assert "def fetch(url: str," in packed.text
    assert packed.tokens <= 2000


def test_a_tight_budget_keeps_the_nearest_needs_and_is_respected(
    collection: Collection,
) -> None:
    words = lambda texts: [len(t.split()) for t in texts]  # noqa: E731
    packed = context_for_code(collection, MAIN, path="app/main.py", max_tokens=40,
                          tokenizer=words)
    assert 0 < packed.tokens <= 40
    assert words([packed.text])[0] == packed.tokens
    # Session was used on the last line: its class header comes before unused imports.
    assert ("pkg/client.py", 15) in read_lines(packed)


def test_whole_bodies_follow_when_the_budget_allows(collection: Collection) -> None:
    packed = context_for_code(collection, MAIN, path="app/main.py", max_tokens=4000)
    assert 'data = url.encode()' in packed.text  # fetch's body
    assert 'return "-".join(text.lower().split())' in packed.text


def test_without_a_path_lines_the_code_holds_are_not_repeated(collection: Collection) -> None:
    code = HELPERS + "\n\ndef caller():\n    return unrelated_helper(1)\n"
    packed = context_for_code(collection, code, max_tokens=2000)
    assert "def slugify" not in packed.text  # the prompt holds it already


def test_filters_and_bad_input(collection: Collection) -> None:
    packed = context_for_code(collection, MAIN, path="app/main.py",
                          filters=SearchFilters(exclude=("pkg/helpers.py",)))
    assert all(b.path != "pkg/helpers.py" for b in packed.blocks)
    with pytest.raises(UserInputError, match="max_tokens"):
        context_for_code(collection, MAIN, max_tokens=0)


def test_the_symbol_table_follows_edits(
    collection: Collection, repo: Path, tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    (repo / "pkg" / "helpers.py").write_text(
        "def titlecase(text: str) -> str:\n    return text.title()\n"
    )
    store = Store(tmp_path / "store")
    index_folder(store, repo, IndexOptions(name="r"))
    fresh = store.open("r")
    code = "from pkg.helpers import titlecase, slugify\n\nname = "
    packed = context_for_code(fresh, code, path="app/main.py")
    assert "def titlecase(text: str) -> str:" in packed.text
    assert "def slugify" not in packed.text  # gone from the file, gone from the table


def test_of_a_module_imported_whole_its_most_used_members_come_first(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = tmp_path / "many"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "events.py").write_text("".join(
        f"def handler_{i}(event):\n    return event + {i}\n\n\n" for i in range(40)))
    for user in ("loop", "tasks"):
        (root / "pkg" / f"{user}.py").write_text(
            "from . import events\n\n\ndef run(e):\n"
            "    events.handler_37(e)\n    return events.handler_37(e) or events.handler_2(e)\n")
    store = Store(tmp_path / "store")
    index_folder(store, root, IndexOptions(name="m", encoder=FAKE_SPEC))
    code = "from . import events\n\n\ndef step(e):\n    "

    def outlined(collection: Collection) -> list[str]:
        packed = context_for_code(collection, code, path="pkg/new.py", max_tokens=40,
                                  similar=False)
        return [line.split("(")[0] for line in packed.text.split("\n") if "def handler_" in line]

    # 40 tokens hold a few of the forty signatures: file order alone would give the first.
    assert {"def handler_37", "def handler_2"} <= set(outlined(store.open("m")))
    for user in ("loop", "tasks"):
        (root / "pkg" / f"{user}.py").unlink()
    index_folder(store, root, IndexOptions(name="m"))
    # The uses left with the files that made them.
    shown = outlined(store.open("m"))
    assert 3 <= len(shown) < 37
    assert shown == [f"def handler_{i}" for i in range(len(shown))]


def test_a_large_class_cannot_crowd_out_the_other_imports(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = tmp_path / "big"
    (root / "pkg").mkdir(parents=True)
    method = "    def _step_{}(self, value):\n        return value\n\n"
    methods = "".join(method.format(i) for i in range(60))
    (root / "pkg" / "engine.py").write_text(
        "class Engine:\n    def __init__(self, size):\n        self.size = size\n\n" + methods
        + "    def start(self):\n        return self\n")
    (root / "pkg" / "util.py").write_text("def tidy(value):\n    return value\n")
    store = Store(tmp_path / "store")
    index_folder(store, root, IndexOptions(name="b", encoder=FAKE_SPEC))
    # Engine is used on the last line and ranks first; tidy is imported, not yet used.
    code = "from pkg.engine import Engine\nfrom pkg.util import tidy\n\nengine = Engine(3)\n"
    words = lambda texts: [len(t.split()) for t in texts]  # noqa: E731
    packed = context_for_code(store.open("b"), code, path="app.py", max_tokens=120,
                              tokenizer=words, similar=False)
    assert "def tidy(value):" in packed.text  # the 60 methods' outline would take it all
    # What is cut from the outline is the private rest: the constructor and the public API stay.
    assert "def __init__(self, size):" in packed.text and "def start(self):" in packed.text
    assert "def _step_59" not in packed.text


def test_a_name_on_a_multi_line_imports_lines_is_not_yet_used() -> None:
    # Counted as a use, `slugify,` on line 2 took away the weight of an import not used yet.
    code = "from pkg.helpers import (\n    slugify,\n)\n\nvalue = 1\n"
    bound = {n for ref in extract_symbols(code, "python").imports for n in ref.lines}
    assert "slugify" not in nearness(code, bound) and "value" in nearness(code, bound)


def test_answers_do_not_depend_on_how_many_files_are_kept_read(
    collection: Collection, monkeypatch: pytest.MonkeyPatch
) -> None:
    """File texts are kept in a bounded cache; one that keeps a single file (evicting on
    every read of another) gives the same answer."""
    wide = context_for_code(collection, MAIN, path="app/main.py", max_tokens=2000)
    monkeypatch.setattr(collection_view, "MAX_CACHED_FILES", 1)
    collection_view._CACHE.clear()
    narrow = context_for_code(collection, MAIN, path="app/main.py", max_tokens=2000)
    assert narrow.text == wide.text and read_lines(narrow) == read_lines(wide)
    assert len(collection_view._CACHE[collection][1]["lines"]) == 1  # type: ignore[arg-type]


def test_a_class_outline_lists_its_own_members_not_a_namesakes(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, {
        "pkg/web.py": "class Config:\n    def load_routes(self):\n        return []\n",
        "pkg/db.py": "class Config:\n    def open_pool(self):\n        return None\n",
    })
    code = "from pkg.web import Config\nfrom pkg.db import Config as DbConfig\n\nc = Config()\n"
    candidates = code_context._structural(collection, code, "", "app.py", "python")
    members = {c.row.path: [m.name for m in c.members] for c in candidates.values()
               if c.row.kind == "class"}
    assert members == {"pkg/web.py": ["load_routes"], "pkg/db.py": ["open_pool"]}


def test_a_member_shown_on_its_own_comes_under_its_class_header(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, {
        "pkg/rows.py": 'class Row:\n    """A stored row."""\n\n    path: str\n    size: int\n',
    })
    code = "from pkg.rows import Row\n\n\ndef show(row: Row) -> str:\n    return row.path\n"
    words = lambda texts: [len(t.split()) for t in texts]  # noqa: E731
    shown = []
    for budget in range(8, 20):  # the field used on the last line ranks first
        text = context_for_code(collection, code, path="app.py", max_tokens=budget,
                                tokenizer=words, similar=False).text
        if "path: str" in text:
            shown.append(budget)
            assert text.index("class Row:") < text.index("path: str"), text
    assert shown and min(shown) < 16  # before the whole class outline fits


def test_a_classs_members_the_collection_uses_most_come_first(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    """Of a class's thirty methods, the one the rest of the collection calls through the
    class's name (`Registry.lookup(`) leads its outline, as a module's most used members do."""
    methods = "".join(f"    @classmethod\n    def method_{i}(cls, value):\n        return value\n\n"
                      for i in range(30))
    callers = {f"pkg/use_{i}.py": "from pkg.registry import Registry\n\n\n"
               f"def find_{i}(key):\n    return Registry.method_17(key)\n" for i in range(4)}
    collection = indexed(tmp_path, {"pkg/registry.py": f"class Registry:\n{methods}", **callers})
    code = "from pkg.registry import Registry\n\n\ndef resolve(key):\n    "
    words = lambda texts: [len(t.split()) for t in texts]  # noqa: E731
    packed = context_for_code(collection, code, path="pkg/app.py", max_tokens=40,
                              tokenizer=words, similar=False)
    assert "def method_17(cls, value):" in packed.text
    assert "def method_28(cls, value):" not in packed.text  # the outline was cut


def test_a_name_a_called_function_returns_into_shows_its_class_members_first(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    """`resp = session.get(...)`: get's return annotation says resp is a Response, which
    the code never imports; its public members come before the many other definitions."""
    others = "".join(f"def helper_{i}(value):\n    return value\n\n\n" for i in range(30))
    collection = indexed(tmp_path, {
        "pkg/http.py": (
            "class Response:\n    def __init__(self, body):\n        self.body = body\n\n"
            "    def close(self):\n        return None\n\n"
            "    def json(self):\n        return {}\n\n\n"
            "class Session:\n    def get(self, url: str) -> \"Response\":\n"
            "        return Response(url)\n"),
        "pkg/helpers.py": others,
    })
    code = ("from pkg.http import Session\nfrom pkg import helpers\n\n\n"
            "def fetch(session: Session, url):\n    resp = session.get(url)\n")
    words = lambda texts: [len(t.split()) for t in texts]  # noqa: E731
    packed = context_for_code(collection, code, path="app.py", max_tokens=60, tokenizer=words,
                              similar=False)
    assert "def close(self):" in packed.text and "def json(self):" in packed.text
    assert packed.text.index("class Response:") < packed.text.index("def helper_")


def test_a_class_outline_lists_its_members_as_their_evidence_ranks_them(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    methods = "".join(f"    def step_{i}(self, item):\n        return item\n\n" for i in range(12))
    collection = indexed(tmp_path, {
        "pkg/queue.py": f"class Queue:\n{methods}    def put_nowait(self, item):\n"
                        "        return item\n",
        "pkg/worker.py": "from pkg.queue import Queue\n\n\ndef feed(jobs):\n"
                         "    pending = Queue()\n    for job in jobs:\n"
                         "        pending.put_nowait(job)\n",
    })
    code = "from pkg.queue import Queue\n\n\ndef refill(jobs):\n    pending = Queue()\n" \
           "    for job in jobs:\n        "
    candidates = code_context._structural(collection, code, "", "pkg/refill.py", "python")
    code_context._add_similar(collection, code, "pkg/refill.py", SearchFilters(), candidates)
    (queue,) = (c for c in candidates.values() if c.row.name == "Queue")
    assert queue.members[0].name == "step_0"  # in source order until all evidence is in
    code_context._order_members(candidates)
    # Code like this (worker.py) calls put_nowait: the last of thirteen members comes first,
    # where a budget's cut keeps it; the rest keep their order.
    names = [m.name for m in queue.members]
    assert names == ["put_nowait", *(f"step_{i}" for i in range(12))]


def test_similar_documents_lend_their_names_but_only_code_is_offered(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # A README's example and a config file share the last lines' words: the example's
    # calls speak for the definitions it uses, but neither file is itself a candidate.
    others = {f"pkg/other_{i}.py": f"def unrelated_{i}(path, mode):\n    return open(path, mode)\n"
              for i in range(8)}  # so that the shared words are rare enough to count
    collection = indexed(tmp_path, {
        **others,
        "pkg/cart.py": "def add_item(cart, item, price):\n    return price\n\n\n"
                       "def clear(cart):\n    return cart\n",
        "README.md": "# Carts\n\nFill a cart with items at a price:\n\n"
                     "    for item in items:\n        add_item(cart, item, price)\n",
        "config.json": '{"cart": {"items": ["item"], "price": 250}}\n',
    })
    code = "def checkout(items, price):\n    cart = []\n    for item in items:\n        "
    candidates = code_context._structural(collection, code, "", "pkg/shop.py", "python")
    code_context._add_similar(collection, code, "pkg/shop.py", SearchFilters(), candidates)
    assert {c.row.path for c in candidates.values()} == {"pkg/cart.py"}
    add_item = next(c for c in candidates.values() if c.row.name == "add_item")
    clear = next(c for c in candidates.values() if c.row.name == "clear")
    assert add_item.score > clear.score  # the README's example calls it


def test_a_small_budget_spends_its_tokens_on_signatures_not_docstrings(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    doc = " ".join(["word"] * 24)
    tools = "".join(f'def tool_{i}(x):\n    """Tool number {i}: {doc}."""\n'
                    "    return x\n\n\n" for i in range(8))
    names = ", ".join(f"tool_{i}" for i in range(8))
    collection = indexed(tmp_path, {"pkg/tools.py": tools})
    code = f"from pkg.tools import {names}\n\n\ndef run(x):\n    "
    words = lambda texts: [len(t.split()) for t in texts]  # noqa: E731

    def shown(budget: int) -> tuple[int, int]:
        text = context_for_code(collection, code, path="pkg/run.py", max_tokens=budget,
                                tokenizer=words, similar=False).text
        return text.count("def tool_"), text.count('"""Tool number')

    signatures, docs = shown(64)
    # One docstring per 64 tokens: eight signatures, where two docstrings would leave room
    # for two or three.
    assert (signatures, docs) == (8, 1)
    assert shown(2048) == (8, 8)


def test_an_overloaded_function_is_its_implementation_saying_how_many_stubs(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, {
        "pkg/headers.py": (
            "from typing import overload\n\n\n"
            "class Headers:\n"
            "    @overload\n"
            "    def get(self, key: str) -> str | None: ...\n"
            "    @overload\n"
            "    def get(self, key: str, default: str) -> str: ...\n"
            "    def get(self, key: str, default: str | None = None) -> str | None:\n"
            '        """The header\'s value."""\n'
            "        return default\n"
        ),
    })
    code = "from pkg.headers import Headers\n\n\ndef read(h: Headers) -> str:\n    return h.get(\n"
    answer = in_words(collection, code)
    lines = answer.text.split("\n")
    assert ("    def get(self, key: str, default: str | None = None) -> str | None:"
            "  # 2 overloads") in lines
    assert not any(line.endswith(": ...") for line in lines)  # no stub takes budget
    assert answer.tokens <= 400 and answer.tokens == len(answer.text.split())


def in_words(collection: Collection, code: str) -> RagContext:
    """The answer for ``code`` in app.py at 400 tokens that are words, similar code aside."""
    return context_for_code(collection, code, path="app.py", max_tokens=400, similar=False,
                            tokenizer=lambda texts: [len(t.split()) for t in texts])


def test_a_long_signature_is_one_line_and_a_commented_one_stays_as_written(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, {
        "pkg/api.py": (
            "def get(\n"
            "    url: str,\n"
            "    *,\n"
            "    timeout: float = 3.0,\n"
            ") -> bytes:\n"
            '    """Fetch url."""\n'
            "    return b''\n"
            "\n\n"
            "def post(  # the payload is sent as JSON\n"
            "    url: str,\n"
            "    data: dict,\n"
            ") -> bytes:\n"
            "    return b''\n"
        ),
    })
    code = "from pkg.api import get, post\n\n\ndef main() -> None:\n"
    answer = in_words(collection, code)
    lines = answer.text.split("\n")
    assert "def get(url: str, *, timeout: float = 3.0) -> bytes:" in lines
    assert "def post(  # the payload is sent as JSON" in lines and "    data: dict," in lines
    (block,) = answer.blocks
    assert block.covers == {1: 5} and block.ranges[0][0] == 1
    assert answer.tokens == len(answer.text.split())


def test_code_that_is_not_a_test_is_offered_no_tests_definitions(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # `handler` is defined once in the collection, in a test; library code's `handler` is
    # its own local, never that test's function. A test still gets it.
    collection = indexed(tmp_path, {
        "tests/test_server.py": "def handler(request):\n    return request\n",
        "pkg/routes.py": "def route(path):\n    return path\n",
    })
    code = ("from pkg.routes import route\n\n\ndef serve(app):\n    handler = app.pick()\n"
            "    handler.run()\n    ")
    answer = lambda path: context_for_code(collection, code, path=path, similar=False).text  # noqa: E731
    assert "def route(path):" in answer("pkg/server.py")
    assert "def handler(request):" not in answer("pkg/server.py")
    assert "def handler(request):" in answer("tests/test_other.py")
