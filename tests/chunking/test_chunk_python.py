"""Python: splitting classes and long functions, and the ``ast`` fallback."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from embedstore.chunking import (
    Chunk,
    TokenCounter,
    chunk_body,
    chunk_file,
    code_outline,
    python_ast,
    treesitter,
)
from embedstore.chunking.units import group_units

if TYPE_CHECKING:
    from conftest import Layout

CACHE = '''\
import os


class FileCache(Base):
    """Remembers the contents of files it has read."""

    limit = 100
    hits = 0

    def get(self, path):
        """The contents of ``path``, read at most once."""
        if path in self.items:
            self.hits += 1
            return self.items[path]
        text = read_text(path)
        self.items[path] = text
        return text

    def forget(self, path):
        """Drop ``path`` so that the next read goes to disk again."""
        if path in self.items:
            del self.items[path]
            self.misses += 1
            return True
        return False

    @property
    def size(self):
        total = 0
        for text in self.items.values():
            total += len(text)
        return total


def main():
    cache = FileCache()
    for name in os.listdir("."):
        cache.get(name)
    print(cache.size)
'''


def long_function(statements: int) -> str:
    body = "".join(f"    total = total + values[{n}] * weight\n" for n in range(statements))
    return f"def weighted(values, weight):\n    total = 0\n{body}    return total\n"


# Whether or not it fits: a search for a method should find the method, not its class.
@pytest.mark.parametrize("max_tokens", [60, 1000])
def test_a_class_is_an_outline_beside_its_methods(
    chunk: Callable[..., list[Chunk]], max_tokens: int
) -> None:
    chunks = chunk(CACHE, "python", max_tokens)
    assert [(c.kind, c.symbol, c.start_line, c.end_line, c.context) for c in chunks] == [
        ("module", None, 1, 1, ""),
        # The whole class, one unit.
        ("class", "FileCache", 4, 32, ""),
        ("method", "FileCache.get", 10, 17, "class FileCache(Base):"),
        ("method", "FileCache.forget", 19, 25, "class FileCache(Base):"),
        # Decorators belong to the method.
        ("method", "FileCache.size", 27, 32, "class FileCache(Base):"),
        ("function", "main", 35, 39, ""),
    ]
    # It embeds its own lines (header, docstring, attributes) and its methods' signatures.
    assert chunks[1].text == (
        'class FileCache(Base):\n    """Remembers the contents of files it has read."""\n\n'
        "    limit = 100\n    hits = 0\n"
        "    def get(self, path):\n    def forget(self, path):\n    def size(self):"
    )


def test_long_function_is_split_with_its_signature_as_context(
    chunk: Callable[..., list[Chunk]],
) -> None:
    text = long_function(40)
    chunks = chunk(text, "python", 60)
    assert len(chunks) > 1
    assert all(c.symbol == "weighted" and c.kind == "function" for c in chunks)
    assert chunks[0].start_line == 1 and chunks[0].context == ""
    assert all(c.context == "def weighted(values, weight):" for c in chunks[1:])
    # The pieces follow each other without gaps or overlaps.
    assert [c.start_line for c in chunks[1:]] == [c.end_line + 1 for c in chunks[:-1]]
    assert chunks[-1].end_line == 43


def test_long_method_pieces_carry_class_and_signature(chunk: Callable[..., list[Chunk]]) -> None:
    method = "".join("    " + line + "\n" for line in long_function(40).splitlines())
    text = "class Stats:\n    scale = 2\n\n" + method
    chunks = chunk(text, "python", 60)
    assert (chunks[0].symbol, chunks[0].start_line, chunks[0].end_line) == ("Stats", 1, 46)
    assert chunks[0].text == "class Stats:\n    scale = 2\n    def weighted(values, weight):"
    assert chunks[1].symbol == "Stats.weighted" and chunks[1].context == "class Stats:"
    assert {c.context for c in chunks[2:]} == {"class Stats:\ndef weighted(values, weight):"}


def test_every_piece_is_within_budget_with_its_context(count_tokens: TokenCounter) -> None:
    for max_tokens in (16, 20, 33, 60, 128):
        chunks = chunk_file(
            long_function(80), "python", max_tokens=max_tokens, count_tokens=count_tokens
        )
        assert max(count_tokens([chunk_body(c) for c in chunks])) <= max_tokens


def test_nested_functions_stay_in_their_function(outline: Callable[..., Layout]) -> None:
    text = (
        "def outer(items):\n"
        "    def key(item):\n"
        "        return item.name\n"
        "\n"
        "    items.sort(key=key)\n"
        "    return items\n"
    )
    assert outline(text, "python") == [("function", "outer", 1, 6)]


def test_syntax_errors_are_still_chunked(chunk: Callable[..., list[Chunk]]) -> None:
    text = CACHE.replace("def forget(self, path):", "def forget(self, path:") + "\nx = (\n"
    chunks = chunk(text, "python")
    # The checks of the fixture (every line covered, exact lines) are the point.
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 41
    assert "FileCache" in {c.symbol for c in chunks}


@pytest.mark.parametrize("max_tokens", [60, 1000])
def test_ast_fallback_finds_the_same_chunks(
    monkeypatch: pytest.MonkeyPatch, outline: Callable[..., Layout], max_tokens: int
) -> None:
    with_tree_sitter = outline(CACHE, "python", max_tokens)
    monkeypatch.setattr(treesitter, "parser_for", lambda language: None)
    assert outline(CACHE, "python", max_tokens) == with_tree_sitter


COMMENTED = """\
class Settings:  # loaded once
    # The first member's comment.
    def load(self):
        pass

    if DEBUG:
        # Only while debugging.
        @staticmethod
        def dump(
            target,
        ) -> None:
            print(target)
"""


@pytest.mark.parametrize("source", [CACHE, COMMENTED])
def test_ast_outline_matches_tree_sitter_blocks(source: str) -> None:
    parsed = treesitter.outline(source, "python")
    assert parsed is not None and parsed.clean
    assert python_ast.outline(source) == parsed.blocks


def test_ast_is_used_when_tree_sitter_reports_errors(
    monkeypatch: pytest.MonkeyPatch, outline: Callable[..., Layout]
) -> None:
    # A grammar older than the interpreter sees errors in valid code.
    monkeypatch.setattr(
        treesitter, "outline", lambda text, language: treesitter.TreeOutline([], clean=False)
    )
    assert outline(CACHE, "python", 60)[2] == ("method", "FileCache.get", 10, 17)


def test_invalid_python_without_tree_sitter_falls_back_to_lines(
    monkeypatch: pytest.MonkeyPatch, outline: Callable[..., Layout]
) -> None:
    monkeypatch.setattr(treesitter, "parser_for", lambda language: None)
    assert outline("def broken(:\n    pass\n", "python") == [("lines", None, 1, 2)]


# One name defined several times in one scope: each run is one unit.
REDEFINED = '''\
import sys
import typing
import typing_extensions
from typing import overload


@overload
def parse(value: int) -> int: ...
@typing.overload
def parse(value: str) -> str: ...
def parse(value):
    return value


class Box:
    @property
    def size(self) -> int:
        return self._size

    @size.setter
    def size(self, value: int) -> None:
        self._size = value

    @size.deleter
    def size(self) -> None:
        del self._size

    @typing_extensions.overload
    def get(self, key: int) -> int: ...
    @typing_extensions.overload
    def get(self, key: str) -> str: ...
    def get(self, key):
        return self.items[key]


if sys.platform == "win32":
    import msvcrt

    def raw_terminal():
        yield -1

    def getchar(echo):
        return msvcrt.getwch()
else:
    import tty

    def raw_terminal():
        yield tty.setraw(0)

    def getchar(echo):
        return sys.stdin.read(1)

try:
    from os import fspath

    def home():
        return fspath("~")
except ImportError:
    def home():
        return "~"
'''

# The layout and the signature that speaks for each unit, with either parser.
REDEFINED_UNITS = [
    ("module", None, 1, 4, None),
    # The implementation's range, stretched over the stubs right above it.
    ("function", "parse", 7, 12, "def parse(value):"),
    ("class", "Box", 15, 33, "class Box:"),
    ("module", None, 36, 37, None),
    # The names both branches define, interleaved: one unit for the pair.
    ("function", "raw_terminal, getchar", 39, 51, "def raw_terminal():"),
    ("module", None, 53, 54, None),
    # A fallback in `except ImportError:`.
    ("function", "home", 56, 60, "def home():"),
]


@pytest.mark.parametrize("parser", ["tree-sitter", "ast"])
def test_definitions_of_one_name_are_one_unit(
    monkeypatch: pytest.MonkeyPatch, outline: Callable[..., Layout], parser: str
) -> None:
    if parser == "ast":
        monkeypatch.setattr(treesitter, "parser_for", lambda language: None)
    blocks = code_outline(REDEFINED, "python")
    assert blocks is not None
    headers = {block.symbol: block.header for block in blocks}
    assert [(*unit[:4], headers.get(unit[1])) for unit in REDEFINED_UNITS] == REDEFINED_UNITS
    # Box's members, units of their own, are the next test's.
    top_level = [unit for unit in outline(REDEFINED, "python") if unit[0] != "method"]
    assert top_level == [unit[:4] for unit in REDEFINED_UNITS]


def test_property_accessors_and_overloads_of_a_class_are_one_member_each(
    outline: Callable[..., Layout],
) -> None:
    (box,) = [b for b in code_outline(REDEFINED, "python") or [] if b.symbol == "Box"]
    assert [(m.symbol, m.start, m.end, m.head) for m in box.children] == [
        ("Box.size", 16, 26, 17),  # from the getter's decorator to the deleter's end
        ("Box.get", 28, 33, 32),  # the implementation's `def` line leads
    ]
    assert outline(REDEFINED, "python", 40)[2:5] == [
        ("class", "Box", 15, 33),
        ("method", "Box.size", 16, 26),
        ("method", "Box.get", 28, 33),
    ]


def test_a_name_defined_once_between_two_of_another_keeps_them_apart(
    outline: Callable[..., Layout],
) -> None:
    body = "".join(f"    step_{n}()\n" for n in range(4))
    text = "\n".join(f"def {name}():\n{body}" for name in ("f", "helper", "f"))
    # Folding the two `f` would swallow `helper`.
    assert outline(text, "python") == [
        ("function", "f", 1, 5),
        ("function", "helper", 7, 11),
        ("function", "f", 13, 17),
    ]


def test_an_outline_over_budget_is_split_each_piece_standing_for_its_lines(
    chunk: Callable[..., list[Chunk]],
) -> None:
    methods = "".join(
        f"    def method_{n}(self, first, second):\n        return first + second * {n}\n\n"
        for n in range(12)
    )
    text = f'class Wide:\n    """Many small methods."""\n\n{methods}'
    chunks = chunk(text, "python", 40)
    pieces = [c for c in chunks if c.kind == "class"]
    assert len(pieces) > 1
    # One unit, the whole class: the pieces tile it, the later ones under its header.
    assert {c.unit_lines for c in pieces} == {(1, 38)}
    assert [c.start_line for c in pieces[1:]] == [c.end_line + 2 for c in pieces[:-1]]
    assert (pieces[0].start_line, pieces[-1].end_line) == (1, 38)
    assert [c.context for c in pieces] == [""] + ["class Wide:"] * (len(pieces) - 1)
    signatures = [f"    def method_{n}(self, first, second):" for n in range(12)]
    rows = ["class Wide:", '    """Many small methods."""', *signatures]
    assert "\n".join(c.text for c in pieces) == "\n".join(rows)
    (unit,) = [u for u in group_units(chunks) if u.kind == "class"]
    assert (unit.start_line, unit.end_line, len(unit.chunks)) == (1, 38, len(pieces))
