"""What the case finders of every language share: definitions, uses, and tree-sitter plumbing.

A finder reads a repository's files of one language and returns, per file, the
uses of other files' definitions that its lines make, found by the finder's own
parse (Python's ``ast``, or tree-sitter queries written for the benchmark), never
by the chunker's symbol tables, so that code-at-cursor is not graded by its own
name resolution.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from embedstore.chunking.treesitter import parser_for

if TYPE_CHECKING:
    from tree_sitter import Node, Query

    from embedstore.ingest.sources import SourceFile


@dataclass(frozen=True)
class Definition:
    path: str
    line: int  # the line of its name: after any decorator, attribute or annotation line
    name: str  # qualified within its module: "load", "Widget", "Widget.resize"
    kind: str  # "function", "class", "method" or "constant"
    # A class's (struct's, enum's, trait's...) methods and constants, filled as they are found.
    members: dict[str, Definition] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class Use:
    line: int  # where the used name is written: the case's target line
    column: int  # the end of the used name, to order uses of one line
    kind: str  # "call", "method" or "attribute"
    target: Definition


@dataclass(frozen=True)
class FileUses:
    path: str
    source: str
    uses: list[Use]


# Reads a repository's (root's) files of one language; returns the uses in each of them.
Finder = Callable[[Path, Sequence["SourceFile"]], list[FileUses]]


def use_kind(target: Definition) -> str | None:
    """The case kind of calling ``target``: a method's is "method"; None when not callable."""
    return {"function": "call", "class": "call", "method": "method"}.get(target.kind)


def use_of(node: Node, target: Definition, called: bool) -> Use | None:
    """The case ``node`` (the used name) makes: a call or method call of ``target`` when
    called, else a read of it when it is a constant; None for anything else."""
    kind = use_kind(target) if called else ("attribute" if target.kind == "constant" else None)
    return None if kind is None else use(node, kind, target)


def parse(language: str, text: str) -> Node | None:
    parser = parser_for(language)
    if parser is None:
        return None
    return parser.parse(text.encode("utf-8", errors="replace")).root_node


@functools.cache
def query(language: str, source: str) -> Query:
    from tree_sitter import Query

    parser = parser_for(language)
    assert parser is not None and parser.language is not None
    return Query(parser.language, source)


def has(language: str, kind: str) -> bool:
    """Whether the language's grammar has named nodes of ``kind`` (JavaScript has no enums)."""
    parser = parser_for(language)
    assert parser is not None and parser.language is not None
    return bool(parser.language.id_for_node_kind(kind, True))


def choice(language: str, kinds: Sequence[str]) -> str:
    """A query alternation of those ``kinds`` the language's grammar has: `[(a) (b)]`."""
    return "[" + " ".join(f"({k})" for k in kinds if has(language, k)) + "]"


def captures(language: str, source: str, node: Node) -> dict[str, list[Node]]:
    """Every capture of the query ``source`` under ``node``, per capture name, in source order."""
    from tree_sitter import QueryCursor

    found = QueryCursor(query(language, source)).captures(node)
    return {name: sorted(nodes, key=lambda n: n.start_byte) for name, nodes in found.items()}


def matches(language: str, source: str, node: Node) -> list[dict[str, list[Node]]]:
    """Every match of the query ``source`` under ``node``, in source order."""
    from tree_sitter import QueryCursor

    found = [m for _, m in QueryCursor(query(language, source)).matches(node)]
    return sorted(found, key=lambda m: min(n.start_byte for ns in m.values() for n in ns))


def text(node: Node | None) -> str:
    return "" if node is None or node.text is None else node.text.decode("utf-8", "replace")


def line(node: Node) -> int:
    return node.start_point[0] + 1


def use(node: Node, kind: str, target: Definition) -> Use:
    """A use of ``target`` written at ``node`` (the used name)."""
    return Use(line(node), node.end_point[1], kind, target)


def preorder(node: Node) -> Iterator[Node]:
    """``node`` and everything under it, in source order, without recursing on the stack."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))
