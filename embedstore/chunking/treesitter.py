"""Outlines of source files from tree-sitter syntax trees.

Trees are walked in rows, never in byte offsets: the file is parsed as UTF-8
bytes, so byte and character offsets differ on non-ASCII lines, but a row is
the same line in both.
"""

from __future__ import annotations

import functools
import importlib
import re
import threading
from collections import deque
from typing import TYPE_CHECKING, NamedTuple

from embedstore.chunking.assigned_members import AssignedMember, assigned_member
from embedstore.chunking.grammars import CLASS_KINDS, FUNCTION_VALUES, GRAMMARS, Grammar
from embedstore.chunking.outline import SIGNATURE_KIND, Block, qualified, signature

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Parser

_IDENTIFIER = re.compile(r"\w+")


class _Parsers(threading.local):
    """Parsers by language; they keep per-parse state, so each thread has its own."""

    def __init__(self) -> None:
        self.by_language: dict[str, Parser] = {}


_parsers = _Parsers()


class TreeOutline(NamedTuple):
    blocks: list[Block]
    clean: bool  # False when the tree has syntax errors (tree-sitter recovered)


def outline(text: str, language: str) -> TreeOutline | None:
    """The definitions of ``text``; None when the grammar is not installed."""
    grammar = GRAMMARS[language]
    parser = parser_for(language)
    if parser is None:
        return None
    # Lone surrogates (undecodable bytes) cannot be encoded; replacing them keeps rows.
    tree = parser.parse(text.encode("utf-8", errors="replace"))
    walker = _Walker(grammar, text.split("\n"))
    blocks = walker.collect(tree.root_node.children, None, False)
    return TreeOutline(blocks, not tree.root_node.has_error)


def parser_for(language: str) -> Parser | None:
    """A parser for ``language``; None when its grammar wheel is not installed."""
    parsers = _parsers.by_language
    if language not in parsers:
        loaded = _language(language)
        if loaded is None:
            return None
        from tree_sitter import Parser

        parsers[language] = Parser(loaded)
    return parsers[language]


@functools.cache
def _language(language: str) -> Language | None:
    grammar = GRAMMARS[language]
    try:
        from tree_sitter import Language

        module = importlib.import_module(grammar.module)
    except ImportError:
        return None
    return Language(getattr(module, grammar.entry)())


def end_row(node: Node) -> int:
    """The last row holding part of ``node``.

    Its last token tells: some scanners stretch a block to the next token
    (Scala's indentation), and a trailing newline ends on the next row.
    """
    while node.child_count:
        node = node.children[-1]
    row, column = node.end_point
    return row - 1 if column == 0 and row > node.start_point.row else row


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def _name_text(node: Node) -> str:
    # `declare module "fs"` is named by a string literal.
    text = _text(node).strip("\"'`")
    # Lua's `function Stack:push()`: the colon only adds `self`; owners are dotted.
    return text.replace(":", ".") if node.type == "method_index_expression" else text


class _Walker:
    def __init__(self, grammar: Grammar, lines: list[str]) -> None:
        self.grammar = grammar
        self.lines = lines

    def collect(
        self, nodes: list[Node], owner: str | None, in_class: bool, lead: int | None = None
    ) -> list[Block]:
        """Definitions among ``nodes`` and below them, without entering function bodies.

        Nodes on one line are not entered either: a one-line definition in
        them stays in the chunk around it, and most nodes are on one line.

        ``owner`` qualifies the symbols found; ``in_class`` makes functions
        methods; ``lead`` is the first row of comments that end right above
        ``nodes`` (grammars hang some before an ``if``'s block rather than in it).
        """
        blocks: list[Block] = []
        taken = -1  # last row owned by a block
        lead_start = lead  # first row of the comments directly above
        lead_end = nodes[0].start_point.row - 1 if nodes and lead is not None else -1
        queue = deque(nodes)
        while queue:
            child = queue.popleft()
            row, end = child.start_point.row, end_row(child)
            if child.type in self.grammar.leading:
                if lead_start is None or row > lead_end + 1:
                    # A trailing comment (code before it on its row) leads nothing.
                    starts_row = not self.lines[row][: child.start_point.column].strip()
                    lead_start = row if starts_row else None
                lead_end = end
                continue
            above = lead_start if lead_start is not None and lead_end == row - 1 else None
            found = self._definition(child)
            if found is not None:
                last, trailing = self._extent(child)
                if row > taken:
                    start = max(row if above is None else above, taken + 1)
                    blocks.append(self._block(*found, (start, last), owner, in_class))
                    taken = last
                queue.extendleft(reversed(trailing))  # they may lead the next definition
            elif end > row:
                for block in self.collect(child.children, owner, in_class, above):
                    if block.start - 1 > taken:
                        blocks.append(block)
                        taken = block.end - 1
            lead_start = None
        return blocks

    def _extent(self, node: Node) -> tuple[int, list[Node]]:
        """The last row of a definition, and the comments in it that belong to what follows.

        A grammar that ends a block at the next token (Scala's indentation)
        keeps the comments before that token in the block; one indented no
        deeper than the definition is not part of it, as in Python's ``ast``
        fallback.
        """
        column = node.start_point.column
        trailing: list[Node] = []
        while node.child_count:
            children = node.children
            kept = len(children)
            while kept > 1 and self._outdented_comment(children[kept - 1], column):
                kept -= 1
            trailing[:0] = children[kept:]
            node = children[kept - 1]
        return end_row(node), trailing

    def _outdented_comment(self, node: Node, column: int) -> bool:
        row, own_column = node.start_point
        return (
            node.type in self.grammar.leading
            and own_column <= column
            and not self.lines[row][:own_column].strip()
        )

    def _definition(self, node: Node) -> tuple[Node, str] | None:
        """The node carrying name and body of the definition ``node`` is, and its kind."""
        grammar = self.grammar
        if node.type in grammar.kinds:
            if node.type in grammar.needs_body and definition_body(node, grammar) is None:
                return None
            return node, grammar.kinds[node.type]
        if node.type in grammar.signatures:
            return node, SIGNATURE_KIND
        if node.type in grammar.bindings:
            for declarator in node.named_children:
                value = declarator.child_by_field_name("value")
                if value is not None and value.type in FUNCTION_VALUES:
                    # Lua keeps names and values in two lists: the statement is the definition.
                    named = declarator.child_by_field_name("name") is not None
                    return (declarator if named else node), "function"
        if node.type in grammar.values and not self._holds_definitions(node):
            return (node, grammar.values[node.type]) if value_names(node) else None
        assigned = self._assigned(node)
        if assigned is not None:
            return node, "function" if assigned.function else "variable"
        if node.type in grammar.wrappers:
            for child in node.named_children:
                found = self._definition(child)
                if found is not None:
                    return found
        return None

    def _assigned(self, node: Node) -> AssignedMember | None:
        if self.grammar.assigned_members and node.type == "expression_statement":
            return assigned_member(node)
        return None

    def _holds_definitions(self, node: Node) -> bool:
        """Whether a value holds named definitions, which need units of their own: a
        bundle's `var lib = (() => { function f() {} ... })()`, an object of methods."""
        below = list(node.named_children)
        while below:
            child = below.pop()
            if child.type in self.grammar.kinds or (
                child.type in self.grammar.bindings and self._definition(child) is not None
            ):
                return True
            below.extend(child.named_children)
        return False

    def _block(
        self, inner: Node, kind: str, rows: tuple[int, int], owner: str | None, method: bool
    ) -> Block:
        """The definition ``inner`` on ``rows`` (first, last), its leading comments included."""
        owner = owner or self._receiver(inner)
        symbol: str | None
        assigned = self._assigned(inner)
        if assigned is not None:
            symbol, method = qualified(assigned.owner, assigned.name), assigned.owner is not None
        elif inner.type in self.grammar.values:
            symbol = ", ".join(str(qualified(owner, name)) for name in value_names(inner))
        else:
            symbol = qualified(owner, self.grammar.names.get(inner.type) or _name(inner))
        if method and kind == "function":
            kind = "method"
        body = definition_body(assigned.value if assigned else inner, self.grammar)
        comments = self._comments_before(body) if body else []
        last_row = _signature_end(inner, body, comments)
        head, header = self._signature(inner, last_row)
        children: tuple[Block, ...] = ()
        if inner.type in self.grammar.containers and body is not None:
            members = [*comments, *body.children]
            children = tuple(self.collect(members, symbol, kind in CLASS_KINDS))
        return Block(rows[0] + 1, rows[1] + 1, kind, symbol, header, head, children)

    def _signature(self, inner: Node, last_row: int) -> tuple[int, str]:
        """:func:`signature` of rows ``inner``..``last_row``, without the definition's own
        type parameters (``<TData, TError = DefaultError>``, Go's ``[T any]``): they say how
        it is typed, not what it is, yet a generic class's run over lines and head the
        chunk of each of its members, where they outweighed a short method's own code."""
        first = inner.start_point.row
        rows = self.lines[first : last_row + 1]
        # Right to left, so that a cut leaves the columns of those before it as they were.
        for cut in sorted(_type_parameters(inner, last_row), key=lambda n: -n.start_byte):
            (top, left), (bottom, right) = cut.start_point, cut.end_point
            before = _encoded(rows[top - first])[:left]
            after = _encoded(rows[bottom - first])[right:]
            if before.endswith(b" ") and after.startswith(b" "):  # Java's `public <T> T get()`
                after = after[1:]
            kept = before + after
            rows[top - first : bottom - first + 1] = [
                kept.decode("utf-8", errors="replace"), *[""] * (bottom - top)]
        head, text = signature(rows, 1, len(rows))
        return first + head, text

    def _comments_before(self, body: Node) -> list[Node]:
        """Comments between a signature and its body.

        Python's grammar puts the comments above a class's first member there.
        """
        comments: list[Node] = []
        node = body.prev_sibling
        while node is not None and node.type in self.grammar.leading:
            comments.insert(0, node)
            node = node.prev_sibling
        return comments

    def _receiver(self, node: Node) -> str | None:
        """The type a Go method is declared on: ``Point`` in ``func (p *Point[T]) M()``."""
        field = self.grammar.receiver
        receiver = node.child_by_field_name(field) if field else None
        if receiver is None:
            return None
        names = _IDENTIFIER.findall(_text(receiver).split("[")[0])
        return names[-1] if names else None


def definition_body(node: Node, grammar: Grammar) -> Node | None:
    """A definition's body; for `const f = () => {}`, the function's."""
    body = node.child_by_field_name("body")
    value = node.child_by_field_name("value")
    if body is None and value is not None:
        body = value.child_by_field_name("body")
    if body is None and grammar.bodies:
        body = next((c for c in node.named_children if c.type in grammar.bodies), None)
    return body


def _name(node: Node) -> str | None:
    """A definition's name, looked up the ways the grammars spell it."""
    name = node.child_by_field_name("name")
    if name is not None:
        return _name_text(name)
    # C/C++: the name is inside nested declarators (`*f(int)` -> `f`).
    declarator = node.child_by_field_name("declarator")
    if declarator is not None:
        while (inner := _inner_declarator(declarator)) is not None:
            declarator = inner
        return _text(declarator)
    # Rust `impl<T> Trait for Type<T>` is named after the type.
    implemented = node.child_by_field_name("type")
    if implemented is not None:
        return _text(implemented).split("<")[0]
    # Go `type (...)` groups and similar: the first named member.
    for child in node.named_children:
        name = child.child_by_field_name("name")
        if name is not None:
            return _name_text(name)
    return None


def value_names(node: Node) -> list[str]:
    """The names a value declaration declares: `const a = 1, b = 2` -> a, b.

    Its own name, else those of its specs or of the specs in its spec list (Go's
    `var (...)`); destructuring patterns (`const {a} = b`) name nothing here.
    """
    own = node.child_by_field_name("name")  # Rust's `const X: u32 = 1;`
    if own is not None:
        return [_text(own)]
    specs = []
    for child in node.named_children:
        specs += child.named_children if child.type.endswith("_list") else [child]
    return [
        _text(name)
        for spec in specs
        for name in spec.children_by_field_name("name")
        if name.type == "identifier"
    ]


def _inner_declarator(declarator: Node) -> Node | None:
    inner = declarator.child_by_field_name("declarator")
    if inner is None and declarator.type == "reference_declarator":
        # C++ `T& f()` keeps its function declarator as an unnamed child.
        inner = next((c for c in declarator.named_children if "declarator" in c.type), None)
    return inner


def _type_parameters(inner: Node, last_row: int) -> list[Node]:
    """The type parameter lists of a definition's signature: its own, or (Go's `type T[K
    any] struct`) its spec's. Every grammar names the field alike."""
    found = (node.child_by_field_name("type_parameters") for node in (inner, *inner.named_children))
    return [node for node in found if node is not None and node.end_point.row <= last_row]


def _encoded(line: str) -> bytes:
    # As the parser was given the text: tree-sitter's columns count these bytes.
    return line.encode("utf-8", errors="replace")


def _signature_end(node: Node, body: Node | None, comments: list[Node]) -> int:
    """The last row of a definition's signature: before its body and the comments above it."""
    if body is None:
        return node.start_point.row
    before = comments[0].prev_sibling if comments else body.prev_sibling
    return max(node.start_point.row, before.end_point.row if before else body.start_point.row)
