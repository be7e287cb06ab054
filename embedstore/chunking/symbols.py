"""Per-file symbol tables: what a file defines, what it imports, where imports lead.

At index time they let a coding model be given, from other files, the
definitions that the code at its cursor uses: ``identifiers`` lists what that
code mentions, ``extract_symbols`` a file's imports and definitions, and
``resolve_import`` the files of the collection an import points to.

One tree-sitter parse per file. Definitions come from a walk that enters only
the nodes able to hold them (class bodies, module-level ``if`` blocks, never
function bodies); imports from a cursor walk over the whole tree, so imports
inside functions count too. Code cut off at a cursor parses with errors; what
precedes the break is still found.

Text comes from users (a request's code) as well as files, so every pass is
linear in it: no backtracking regex, no tree-sitter query (queries go
quadratic on a node with many ERROR children: 200k `(` took 29 s); a parse
gives up after a time proportional to the text (PARSE_SECONDS), and text
that no parse gets through in time is not parsed (MAX_OPEN_ANGLES).
"""

from __future__ import annotations

import dataclasses
import functools
import posixpath
import re
import time
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from embedstore.chunking.assigned_members import assigned_member, commonjs_exported
from embedstore.chunking.grammars import FUNCTION_VALUES, GRAMMARS, Grammar
from embedstore.chunking.projects import JsPackage, Project, TsConfig
from embedstore.chunking.treesitter import _name, _text, definition_body, end_row, parser_for

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree


@dataclass(frozen=True)
class Definition:
    """One definition; lines are 1-based and inclusive, decorators and attributes included.

    ``signature_end_line`` ends the header (the line opening the body), at
    most 20 lines from the definition's keyword; a constant's is its last line,
    under the same cap. ``doc`` is the first line of a Python function's or
    class's docstring, else of the comment block right above the definition.
    """

    name: str
    qualname: str  # "Class.method" for a member, the name at top level
    kind: str  # function | class | method | constant | variable | type
    start_line: int
    end_line: int
    signature_end_line: int
    doc: str


@dataclass(frozen=True)
class ImportRef:
    """One name an import binds in the importing file.

    ``name`` is None when the module itself is bound (``import os``), ``"*"``
    for a wildcard and ``"default"`` for a JS default import. Rust paths keep
    their last segment as the name (``use crate::a::b`` -> module
    ``crate::a``, name ``b``), whether it is an item or a module; ``mod y;``
    is read as ``use self::y``.
    """

    module: str
    name: str | None
    alias: str
    level: int  # Python's leading dots of a relative import, 0 elsewhere
    line: int
    # The statement's last line: `from a import (\n  b,\n  c,\n)` binds on all of them.
    # 0 where unknown (rows read back from the store, which keeps the first line only).
    end_line: int = field(default=0, compare=False)

    @property
    def lines(self) -> range:
        """The lines of the import statement."""
        return range(self.line, max(self.line, self.end_line) + 1)


@dataclass(frozen=True)
class FileSymbols:
    definitions: list[Definition]
    imports: list[ImportRef]
    # (imported name, member) -> uses: `events.sleep(` twice gives ("events", "sleep"): 2;
    # (ANY_VALUE, member): `.member(` calls through any value.
    member_uses: dict[tuple[str, str], int] = field(default_factory=dict)


def extract_symbols(text: str, language: str) -> FileSymbols:
    """The definitions and imports of ``text``; empty for a language without a grammar."""
    grammar = GRAMMARS.get(language)
    parser = parser_for(language) if grammar is not None else None
    if grammar is None or parser is None:
        return FileSymbols([], [])
    tree = _bounded_parse(parser, text) if _parsable(text) else None
    if tree is None:
        return FileSymbols([], [])
    root = tree.root_node
    exported = commonjs_exported(root) if grammar.assigned_members else frozenset()
    definitions = list(_Definitions(language, grammar, exported).scan(root.children, None))
    if grammar.assigned_members:
        definitions = _constructors_as_classes(definitions)
    imports = _imports(root, language)
    return FileSymbols(definitions, imports, member_uses(
        text, imports, implicit=_IMPLICIT_HEADS.get(language, ()),
        every_head=glob_binds_imports(language), unimported=_UNIMPORTED_HEADS.get(language)))


def _constructors_as_classes(definitions: list[Definition]) -> list[Definition]:
    """A function with methods assigned to it (`Layer.prototype.match = function ...`) is a
    class: `new Layer(...)` makes the values that call them."""
    owners = {d.qualname.rpartition(".")[0] for d in definitions if d.kind == "method"}
    return [dataclasses.replace(d, kind="class") if d.kind == "function" and d.qualname in owners
            else d for d in definitions]


# A parse may take this much CPU time, plus this much per character, before giving up:
# real code parses at 0.03 to 0.5 µs per character (effect's Effect.ts, 878 KB: 0.42 s),
# nested errors in some grammars at seconds. A busy machine's CPU time runs slower (two
# cores, shared caches): at 0.5 µs that file got its symbols in one index and none in the
# next. The worst pathological text of tests/chunking gives up in under 0.5 s.
PARSE_SECONDS = 0.2
PARSE_SECONDS_PER_CHAR = 1.5e-6
_READ_CHUNK = 1 << 16
_TEXT_CHUNK = 1 << 12


# A statement with more `<` than this, none closed, is no code: generic-type grammars fork
# on each (`a<b, a<b,` in TypeScript, `a<a<` in Java) and at the end of the text spend
# seconds and gigabytes where the parse cannot be stopped (8,000 took 1.3 GB).
MAX_OPEN_ANGLES = 256
_STATEMENT_BREAK = re.compile(r"[>;{}\n]")


def _parsable(text: str) -> bool:
    """Whether ``text`` is free of the runs of `<` that no parse gets through in time."""
    if text.count("<") <= MAX_OPEN_ANGLES:
        return True
    return all(part.count("<") <= MAX_OPEN_ANGLES for part in _STATEMENT_BREAK.split(text))


def _bounded_parse(parser: Parser, text: str) -> Tree | None:
    """The tree of ``text``; None if parsing it takes longer than its size warrants."""
    # Lone surrogates (undecodable bytes) cannot be encoded; replacing them keeps rows.
    data = text.encode("utf-8", errors="replace")
    # This thread's CPU time: a machine busy with other work gives no parse less of it.
    deadline = time.thread_time() + PARSE_SECONDS + PARSE_SECONDS_PER_CHAR * len(text)

    chunk = _READ_CHUNK

    def read(offset: int, _point: object) -> bytes:
        return data[offset : offset + chunk]

    def give_up(*_state: object) -> bool:
        return time.thread_time() > deadline

    # A progress callback is only called on a parse that reads through a callback.
    try:
        tree = parser.parse(read, progress_callback=give_up)
    except ValueError:  # given up ("Parsing failed")
        parser.reset()  # else the next parse would resume this one
        return None
    # A node's `.text` reads the source back through the same callback, a chunk at a time:
    # the parse's 64 KiB for each name took half of a file's symbols (viper.go: 33 ms, 18
    # with 4 KiB); much smaller chunks make one large node's text slow (1.7 MB: 355 ms in
    # 256-byte chunks, 20 ms in 4 KiB ones, 5 ms in 64 KiB ones).
    chunk = _TEXT_CHUNK
    return tree


# --- Definitions ---------------------------------------------------------------------------

_MAX_SIGNATURE_LINES = 20

# grammars.py's chunk kinds as symbol kinds. Its "impl" and "namespace" define
# nothing themselves: an impl's functions are methods of its type, and a
# namespace's members count as top level (a C# file is one namespace).
_KINDS = {
    "function": "function",
    "method": "method",
    "class": "class",
    "interface": "type",
    "type": "type",
}
# Keywords that make a class-like declaration a type (Java's enum, Swift's struct...).
_TYPE_KEYWORDS = frozenset({"interface", "enum", "struct"})

# Nodes that only group statements: their definitions count as the enclosing
# scope's. In every language ERROR nodes too: a parse error may wrap code that is fine.
_TRANSPARENT = {
    "python": frozenset(
        {
            "if_statement",
            "elif_clause",
            "else_clause",
            "try_statement",
            "except_clause",
            "finally_clause",
            "with_statement",
            "block",
        }
    ),
    "java": frozenset({"enum_body_declarations"}),
    # A companion object's members are called through the class: `Client.MAX`.
    "kotlin": frozenset({"companion_object", "class_body"}),
}

_UPPER_CASE = re.compile(r"_*[A-Z][A-Z0-9_]*")
_COMMENT_OPEN = re.compile(r"^(?:/\*+!?|//+!?|\*+|#+|--+)")
_QUOTES = ('"""', "'''", '"', "'")

# Handles a declaration that is not a plain definition; gets (self, node, inner, owner).
_Special = Callable[["_Definitions", "Node", "Node", "str | None"], Iterator[Definition]]


class _Definitions:
    """The definitions of one parsed file, in file order, members after their class."""

    def __init__(
        self, language: str, grammar: Grammar, exported: frozenset[str] = frozenset()
    ) -> None:
        self.language = language
        self.grammar = grammar
        self.exported = exported  # names exported otherwise than by `export` (CommonJS)
        self.comments = frozenset(kind for kind in grammar.leading if "comment" in kind)
        # Annotations that are siblings of what they annotate: Rust's `#[...]`, TS members'.
        self.attached = (grammar.leading - self.comments) | {"decorator"}
        self.transparent = _TRANSPARENT.get(language, frozenset()) | {"ERROR"}
        self.special = _SPECIAL.get(language, {})

    def scan(self, nodes: Iterable[Node], owner: str | None) -> Iterator[Definition]:
        """Definitions among ``nodes``; ``owner`` is the class they are members of."""
        for node in nodes:
            # `var _ Flag = (*BoolFlag)(nil)` asserts, `const _: () = ...` checks: nothing
            # can name what the blank identifier declares.
            yield from (d for d in self.visit(node, owner) if d.name != self.grammar.blank)

    def visit(self, node: Node, owner: str | None) -> Iterator[Definition]:
        inner = self._unwrap(node)
        special = self.special.get(inner.type)
        kind = self.grammar.kinds.get(inner.type)
        if special is not None:
            yield from special(self, node, inner, owner)
        elif inner.type in self.grammar.bindings:
            yield from self._bindings(node, inner, owner)
        elif kind is None:
            if inner.type in self.transparent:
                yield from self.scan(inner.children, owner)
        elif inner.type in self.grammar.needs_body and definition_body(inner, self.grammar) is None:
            return
        elif kind == "namespace":
            yield from self._members(inner, owner)
        elif kind == "impl":
            implemented = _implemented(inner)
            if owner is None and implemented:
                yield from self._members(inner, implemented)
        elif kind in _KINDS:  # not macros
            yield from self._definition(node, inner, kind, owner)

    def _unwrap(self, node: Node) -> Node:
        """The declaration inside decorators, `export` and the like; ``node`` itself if none."""
        if node.type not in self.grammar.wrappers:
            return node
        for child in node.named_children:
            inner = self._unwrap(child)
            if inner.type in self.grammar.kinds or inner.type in self.grammar.bindings:
                return inner
            if inner.type in self.special:
                return inner
        return node

    def _definition(
        self, node: Node, inner: Node, kind: str, owner: str | None
    ) -> Iterator[Definition]:
        name = self.grammar.names.get(inner.type) or _name(inner)
        if not name:
            return
        if owner is not None:
            if kind != "function":
                return  # classes nest one level: members, not members' members
            kind = "method"
        elif kind == "class":
            kind = _class_kind(inner)
        # A Go method belongs to its receiver's type.
        yield self._make(name, owner or self._receiver(inner), _KINDS[kind], node, inner)
        if owner is None and inner.type in self.grammar.containers:
            yield from self._members(inner, name)

    def _members(self, inner: Node, owner: str | None) -> Iterator[Definition]:
        body = definition_body(inner, self.grammar)
        if body is not None:
            yield from self.scan(body.children, owner)

    def _bindings(self, node: Node, inner: Node, owner: str | None) -> Iterator[Definition]:
        """`const f = () => {}` is a function; `export const X = 1` a constant."""
        if owner is not None:
            return
        exported = node.type == "export_statement"
        keyword = inner.child_by_field_name("kind")
        declarators = inner.named_children
        for declarator in declarators:
            value = declarator.child_by_field_name("value")
            name = declarator.child_by_field_name("name")
            if value is not None and value.type in FUNCTION_VALUES:
                kind = "function"
            elif name is not None and name.type == "identifier" \
                    and (exported or _text(name) in self.exported):
                kind = "constant" if keyword is not None and keyword.type == "const" else "variable"
            else:
                continue
            # Lua keeps names and values in two lists: the statement carries the name.
            text = _text(name) if name is not None else _name(inner)
            extent = node if len(declarators) == 1 else declarator
            if text:
                yield self._make(text, owner, kind, extent, declarator)

    def _make(
        self, name: str, owner: str | None, kind: str, node: Node, header: Node
    ) -> Definition:
        """The definition spanning ``node``, whose signature or value is ``header``."""
        first, before = self._start(node)
        last = max(end_row(node), first)
        opened = (self._value_start(header, last) if kind in ("constant", "variable")
                  else self._header_end(header, last))
        signature_end = max(first, min(opened, self._signature_cap(header, min(opened, last))))
        doc = ""
        if self.language == "python" and kind in ("function", "method", "class"):
            doc = _docstring(header)
        doc = doc or self._comment_doc(before, first)
        qualname = f"{owner}.{name}" if owner else name
        return Definition(name, qualname, kind, first + 1, last + 1, signature_end + 1, doc)

    @staticmethod
    def _value_start(header: Node, last: int) -> int:
        """Where a value's signature ends: at its value when its type is written (what a
        caller needs is the type; the value is its body), else at its end (the value is
        all that shows what it is)."""
        value = header.child_by_field_name("value")
        typed = header.child_by_field_name("type") is not None
        return value.start_point.row if typed and value is not None else last

    def _signature_cap(self, header: Node, end: int) -> int:
        """The row by which a signature ending at ``end`` has _MAX_SIGNATURE_LINES rows of
        code: its comments' rows do not count (effect's `export const map: {` documents
        each overload with a JSDoc block of twenty lines)."""
        cap = header.start_point.row + _MAX_SIGNATURE_LINES - 1
        if end <= cap:
            return end
        comments: set[int] = set()
        stack = [header]
        while stack:
            node = stack.pop()
            if node.start_point.row > end:
                continue
            if node.type in self.comments:
                comments.update(range(node.start_point.row, end_row(node) + 1))
            else:
                stack.extend(node.children)
        code = 0
        for row in range(header.start_point.row, end + 1):
            code += row not in comments
            if code == _MAX_SIGNATURE_LINES:
                return row
        return end

    def _start(self, node: Node) -> tuple[int, Node | None]:
        """The first row of ``node`` with the annotations above it, and the node before those."""
        row = node.start_point.row
        before = node.prev_sibling
        # Python's grammar puts the comments above a class's first member before its block.
        if before is None and node.parent is not None and node.parent.type == "block":
            before = node.parent.prev_sibling
        while before is not None and before.type in self.attached and end_row(before) >= row - 1:
            row = before.start_point.row
            before = before.prev_sibling
        return row, before

    def _comment_doc(self, before: Node | None, row: int) -> str:
        """The first line of the comment block ending right above ``row``."""
        block: list[Node] = []
        while (
            before is not None
            and before.type in self.comments
            and end_row(before) == row - 1
            and not _trails_code(before)
        ):
            block.append(before)
            row = before.start_point.row
            before = before.prev_sibling
        for comment in reversed(block):
            for line in _text(comment).split("\n"):
                cleaned = _COMMENT_OPEN.sub("", _strip_comment_close(line.strip())).strip()
                if cleaned:
                    return cleaned
        return ""

    def _header_end(self, header: Node, last: int) -> int:
        """The row that opens the body of ``header``: Python's `:`, elsewhere the `{`."""
        body = definition_body(header, self.grammar)
        if body is None:
            # Bodies without a field: Go's struct fields, TS's `type T = {`.
            brace = next((child for child in header.children if _opens_brace(child)), None)
            return brace.start_point.row if brace is not None else last
        if self.language != "python":
            return body.start_point.row
        # Comments, and in code being typed errors, may come between the `:` and the body.
        colon = body.prev_sibling
        while colon is not None and colon.type != ":":
            colon = colon.prev_sibling
        return (colon or body).start_point.row

    def _receiver(self, node: Node) -> str | None:
        """The type a Go method is declared on: ``Point`` in ``func (p *Point[T]) M()``."""
        field = self.grammar.receiver
        receiver = node.child_by_field_name(field) if field else None
        if receiver is None:
            return None
        names = re.findall(r"\w+", _text(receiver).split("[")[0])
        return names[-1] if names else None

    # Declarations that a language spells its own way; the keys of _SPECIAL.

    def _python_assignment(
        self, node: Node, inner: Node, owner: str | None
    ) -> Iterator[Definition]:
        """`NAME = ...`, `a = b = ...`, `x, y = ...` and `name: T` at module or class level."""
        assignment = inner.named_children[0] if inner.named_child_count else None
        names: list[str] = []
        while assignment is not None and assignment.type == "assignment":
            names.extend(_target_names(assignment.child_by_field_name("left")))
            assignment = assignment.child_by_field_name("right")
        for name in names:
            # Class attributes are variables whatever their case.
            constant = owner is None and _UPPER_CASE.fullmatch(name)
            yield self._make(name, owner, "constant" if constant else "variable", node, node)

    def _go_declaration(self, node: Node, inner: Node, owner: str | None) -> Iterator[Definition]:
        """`const`, `var` and `type`, one spec or a group: each name is a definition."""
        specs = [c for c in inner.named_children if c.type != "var_spec_list"]
        for group in inner.named_children:
            if group.type == "var_spec_list":
                specs.extend(group.named_children)
        specs = [spec for spec in specs if spec.type not in self.comments]
        kind = {"const_declaration": "constant", "var_declaration": "variable"}.get(
            inner.type, "type"
        )
        for spec in specs:
            extent = node if len(specs) == 1 else spec
            header = spec.child_by_field_name("type") if kind == "type" else None
            for name in spec.children_by_field_name("name"):
                if name.is_named:  # `A, B = 1, 2` files its commas under "name" too
                    yield self._make(_text(name), owner, kind, extent, header or spec)

    def _rust_item(self, node: Node, inner: Node, owner: str | None) -> Iterator[Definition]:
        """`const` and `static` items; only `static mut` is a variable."""
        name = inner.child_by_field_name("name")
        if name is None:
            return
        mutable = any(child.type == "mutable_specifier" for child in inner.children)
        yield self._make(_text(name), owner, "variable" if mutable else "constant", node, inner)

    def _rust_trait_method(
        self, node: Node, inner: Node, owner: str | None
    ) -> Iterator[Definition]:
        """A trait's `fn area(&self) -> f64;`: a method of the trait, as an impl's are."""
        name = inner.child_by_field_name("name")
        if owner is not None and name is not None:
            yield self._make(_text(name), owner, "method", node, inner)

    def _java_field(self, node: Node, inner: Node, owner: str | None) -> Iterator[Definition]:
        """A class's `static final` fields and all of an interface's are constants; its other
        fields variables, as Python's class attributes are (`engine.bridge` reads one)."""
        if owner is None:
            return
        kind = "constant"
        if inner.type == "field_declaration":
            modifiers = next((c for c in inner.children if c.type == "modifiers"), None)
            words = _text(modifiers).split() if modifiers is not None else []
            if "static" not in words or "final" not in words:
                kind = "variable"
        declarators = inner.children_by_field_name("declarator")
        for declarator in declarators:
            name = declarator.child_by_field_name("name")
            extent = node if len(declarators) == 1 else declarator
            if name is not None:
                yield self._make(_text(name), owner, kind, extent, declarator)

    def _class_field(self, node: Node, inner: Node, owner: str | None) -> Iterator[Definition]:
        """A JavaScript or TypeScript class's field (`private x: Foo;`, `static y = 1`): a
        variable of the class, as Python's class attributes are (`err.code` reads one)."""
        # TypeScript's grammar calls the field's name "name", JavaScript's "property".
        name = inner.child_by_field_name("name") or inner.child_by_field_name("property")
        if owner is not None and name is not None:
            yield self._make(_text(name), owner, "variable", node, inner)

    def _ts_enum(self, node: Node, inner: Node, owner: str | None) -> Iterator[Definition]:
        """A TypeScript enum is a type, and its members are constants of it, as Java's enum
        constants are: `MakeResult.Cancel` reaches a member, not just the enum's body."""
        yield from self._definition(node, inner, "type", owner)
        name, body = _name(inner), inner.child_by_field_name("body")
        if owner is not None or not name or body is None:
            return
        for member in body.named_children:
            label = member.child_by_field_name("name") if member.type == "enum_assignment" \
                else member if member.type == "property_identifier" else None
            if label is not None:
                yield self._make(_text(label), name, "constant", member, member)

    def _js_assignment(self, node: Node, inner: Node, owner: str | None) -> Iterator[Definition]:
        """`exports.f = function () {}`, `C.prototype.m = ...`, `app.init = function () {}`
        (chunking/assigned_members.py)."""
        assigned = assigned_member(inner) if owner is None else None
        if assigned is None:
            return
        if assigned.function:
            kind = "function" if assigned.owner is None else "method"
        else:
            kind = "constant" if _UPPER_CASE.fullmatch(assigned.name) else "variable"
        header = assigned.value if assigned.function else inner
        yield self._make(assigned.name, assigned.owner, kind, node, header)

    def _kotlin_property(self, node: Node, inner: Node, owner: str | None) -> Iterator[Definition]:
        """Top-level `val`/`var` (`const val` a constant); in a class only `const val`."""
        modifiers = next((c for c in inner.children if c.type == "modifiers"), None)
        constant = modifiers is not None and "const" in _text(modifiers).split()
        variable = next((c for c in inner.children if c.type == "variable_declaration"), None)
        if variable is None or (owner is not None and not constant):
            return
        name = next((c for c in variable.children if c.type == "identifier"), None)
        if name is not None:
            yield self._make(
                _text(name), owner, "constant" if constant else "variable", node, inner
            )


_TS_SPECIAL: dict[str, _Special] = {
    "public_field_definition": _Definitions._class_field,
    "enum_declaration": _Definitions._ts_enum,
}
_SPECIAL: dict[str, dict[str, _Special]] = {
    "python": {"expression_statement": _Definitions._python_assignment},
    "go": dict.fromkeys(
        ("const_declaration", "var_declaration", "type_declaration"),
        _Definitions._go_declaration,
    ),
    "rust": {
        **dict.fromkeys(("const_item", "static_item"), _Definitions._rust_item),
        "function_signature_item": _Definitions._rust_trait_method,
    },
    "java": dict.fromkeys(("field_declaration", "constant_declaration"), _Definitions._java_field),
    "typescript": _TS_SPECIAL,
    "tsx": _TS_SPECIAL,
    "javascript": {
        "field_definition": _Definitions._class_field,
        "expression_statement": _Definitions._js_assignment,
    },
    "kotlin": {"property_declaration": _Definitions._kotlin_property},
}


def _class_kind(node: Node) -> str:
    """The kind of a class-like node: "type" for enums, interfaces and structs."""
    for child in node.children:
        if child.type in _TYPE_KEYWORDS:
            return "type"
        # Kotlin's `enum class`.
        if child.type == "modifiers" and "enum" in _text(child).split():
            return "type"
    return "class"


def _target_names(left: Node | None) -> list[str]:
    """The plain names an assignment binds; `self.x = ` and `d[k] = ` bind none."""
    if left is None:
        return []
    if left.type == "identifier":
        return [_text(left)]
    if left.type in ("pattern_list", "tuple_pattern"):
        return [_text(child) for child in left.named_children if child.type == "identifier"]
    return []


def _docstring(definition: Node) -> str:
    """The first line of a Python function's or class's docstring."""
    body = definition.child_by_field_name("body")
    if body is None:
        return ""
    first = next((child for child in body.named_children if child.type != "comment"), None)
    if first is None or first.type != "expression_statement" or first.named_child_count != 1:
        return ""
    string = first.named_children[0]
    if string.type != "string":
        return ""
    text = _text(string).lstrip("rRbBuUfF")
    quote = next((q for q in _QUOTES if text.startswith(q)), "")
    text = text[len(quote) :]
    if quote and text.endswith(quote):
        text = text[: -len(quote)]
    return next((line.strip() for line in text.split("\n") if line.strip()), "")


def _strip_comment_close(line: str) -> str:
    """``line`` without a closing `*/` (or `**/`): string methods, as a regex (`\\*+/$`)
    backtracks quadratically on a long run of `*`."""
    return line[:-1].rstrip("*") if line.endswith("*/") else line


def _trails_code(comment: Node) -> bool:
    """Whether ``comment`` follows code on its row, so comments that code, not the next line."""
    before = comment.prev_sibling
    return before is not None and end_row(before) == comment.start_point.row


def _opens_brace(node: Node) -> bool:
    return node.type == "{" or (node.child_count > 0 and node.children[0].type == "{")


# --- Imports -------------------------------------------------------------------------------


def _imports(root: Node, language: str) -> list[ImportRef]:
    reader = _IMPORT_READERS.get(language)
    kinds = _IMPORT_NODES.get(language)
    if reader is None or kinds is None:
        return []
    return [dataclasses.replace(ref, end_line=node.end_point.row + 1)
            for node in _nodes_of(root, kinds) for ref in reader(node)]


def _nodes_of(root: Node, kinds: frozenset[str]) -> Iterator[Node]:
    """The nodes of the tree of ``kinds``, in file order, by one cursor walk (linear)."""
    cursor = root.walk()
    while True:
        node = cursor.node
        if node is not None and node.type in kinds:
            yield node
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _python_imports(node: Node) -> Iterator[ImportRef]:
    line = node.start_point.row + 1
    if node.type == "import_statement":
        for target in node.children_by_field_name("name"):
            module, alias = _python_alias(target)
            yield ImportRef(module, None, alias or module, 0, line)
        return
    source = node.child_by_field_name("module_name")
    if source is None:
        return
    level, module = 0, _dotted(source)
    if source.type == "relative_import":
        prefix = next((c for c in source.children if c.type == "import_prefix"), None)
        level = _text(prefix).count(".") if prefix is not None else 0
        module = next((_dotted(c) for c in source.children if c.type == "dotted_name"), "")
    if any(child.type == "wildcard_import" for child in node.children):
        yield ImportRef(module, "*", "*", level, line)
    for target in node.children_by_field_name("name"):
        name, alias = _python_alias(target)
        yield ImportRef(module, name, alias or name, level, line)


def _python_alias(target: Node) -> tuple[str, str | None]:
    """(`a.b`, `c`) for `a.b as c`; (`a.b`, None) for `a.b`."""
    if target.type != "aliased_import":
        return _dotted(target), None
    name, alias = target.child_by_field_name("name"), target.child_by_field_name("alias")
    return _dotted(name), _text(alias) if alias is not None else None


def _dotted(node: Node | None) -> str:
    # A dotted name may be spread over lines inside parentheses.
    return "".join(_text(node).split()) if node is not None else ""


def _js_imports(node: Node) -> Iterator[ImportRef]:
    line = node.start_point.row + 1
    if node.type == "variable_declarator":
        yield from _js_require(node)
        return
    if node.type == "export_statement":
        yield from _js_reexports(node)
        return
    # TypeScript's `import fs = require("fs")`.
    required = next((c for c in node.children if c.type == "import_require_clause"), None)
    if required is not None:
        alias = next((c for c in required.children if c.type == "identifier"), None)
        source = required.child_by_field_name("source")
        if alias is not None and source is not None:
            yield ImportRef(_unquote(source), None, _text(alias), 0, line)
        return
    source = node.child_by_field_name("source")
    clause = next((c for c in node.children if c.type == "import_clause"), None)
    if source is None or clause is None:
        return  # `import "./side-effects"` binds nothing
    module = _unquote(source)
    for part in clause.named_children:
        if part.type == "identifier":
            yield ImportRef(module, "default", _text(part), 0, line)
        elif part.type == "namespace_import":
            alias = next((c for c in part.children if c.type == "identifier"), None)
            if alias is not None:
                yield ImportRef(module, None, _text(alias), 0, line)
        elif part.type == "named_imports":
            for specifier in part.named_children:
                name = specifier.child_by_field_name("name")
                alias = specifier.child_by_field_name("alias")
                if name is not None:
                    yield ImportRef(module, _unquote(name), _text(alias or name), 0, line)


def _js_reexports(node: Node) -> Iterator[ImportRef]:
    """A barrel's `export * from "./x"`, `export * as ns from "./x"` and
    `export { a, b as c } from "./y"`: imports of what the file passes on."""
    source = node.child_by_field_name("source")
    if source is None:
        return  # `export const ...` or `export { a }` of the file's own names
    module, line = _unquote(source), node.start_point.row + 1
    clause = next((c for c in node.named_children if c.type == "export_clause"), None)
    namespace = next((c for c in node.named_children if c.type == "namespace_export"), None)
    if clause is not None:
        for specifier in clause.named_children:
            name = specifier.child_by_field_name("name")
            alias = specifier.child_by_field_name("alias")
            if name is not None:
                yield ImportRef(module, _unquote(name), _unquote(alias or name), 0, line)
    elif namespace is not None:
        alias = namespace.named_children[-1] if namespace.named_child_count else None
        if alias is not None:
            yield ImportRef(module, None, _unquote(alias), 0, line)
    else:
        yield ImportRef(module, "*", "*", 0, line)


def _js_require(declarator: Node) -> Iterator[ImportRef]:
    """`const m = require("./x")`, `const {a, b: c} = require("./x")` and `const a =
    require("./x").a`."""
    call = declarator.child_by_field_name("value")
    member = None
    if call is not None and call.type == "member_expression":
        member = call.child_by_field_name("property")
        call = call.child_by_field_name("object")
    if call is None or call.type != "call_expression":
        return
    function = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    if function is None or arguments is None or _text(function) != "require":
        return
    source = arguments.named_children[0] if arguments.named_child_count == 1 else None
    target = declarator.child_by_field_name("name")
    if source is None or source.type != "string" or target is None:
        return
    module = _unquote(source)
    line = (declarator.parent or declarator).start_point.row + 1
    if member is not None:
        if target.type == "identifier" and member.type == "property_identifier":
            yield ImportRef(module, _text(member), _text(target), 0, line)
    elif target.type == "identifier":
        yield ImportRef(module, None, _text(target), 0, line)
    elif target.type == "object_pattern":
        for part in target.named_children:
            if part.type == "shorthand_property_identifier_pattern":
                yield ImportRef(module, _text(part), _text(part), 0, line)
            elif part.type == "pair_pattern":
                key, value = part.child_by_field_name("key"), part.child_by_field_name("value")
                if key is not None and value is not None and value.type == "identifier":
                    yield ImportRef(module, _unquote(key), _text(value), 0, line)


def _unquote(node: Node) -> str:
    return _text(node).strip("\"'`")


def _go_imports(spec: Node) -> Iterator[ImportRef]:
    path = spec.child_by_field_name("path")
    if path is None:
        return
    module = _unquote(path)
    alias = spec.child_by_field_name("name")
    local = _text(alias) if alias is not None else module.rsplit("/", 1)[-1]
    yield ImportRef(module, None, local, 0, spec.start_point.row + 1)


def _rust_imports(node: Node) -> Iterator[ImportRef]:
    line = node.start_point.row + 1
    if node.type == "mod_item":  # `mod y;`, a module in its own file; `mod y {}` imports nothing
        name = node.child_by_field_name("name")
        if name is not None and node.child_by_field_name("body") is None:
            written = rust_path_attribute(node)
            # `#[path = "unix/os.rs"] mod os;` imports that file: its module is the path.
            yield (ImportRef(written, None, _text(name), 0, line) if written is not None
                   else _rust_ref(["self", _text(name)], None, line))
        return
    argument = node.child_by_field_name("argument")
    if argument is not None:
        yield from _rust_use(argument, [], line)


_RUST_PATH_ATTRIBUTE = re.compile(r'#\[\s*path\s*=\s*"([^"]+)"\s*\]')


def rust_path_attribute(item: Node) -> str | None:
    """The file a `#[path = "..."]` among the item's attributes names, as written."""
    node = item.prev_named_sibling
    while node is not None and node.type in ("attribute_item", "line_comment", "block_comment"):
        found = _RUST_PATH_ATTRIBUTE.fullmatch(_text(node))
        if found is not None:
            return found.group(1)
        node = node.prev_named_sibling
    return None


def _rust_use(node: Node, prefix: list[str], line: int) -> Iterator[ImportRef]:
    """The names one `use` tree binds, under the path ``prefix`` of the lists around it."""
    if node.type == "use_list":
        for child in node.named_children:
            yield from _rust_use(child, prefix, line)
    elif node.type == "scoped_use_list":
        path, items = node.child_by_field_name("path"), node.child_by_field_name("list")
        if items is not None:
            yield from _rust_use(items, prefix + _segments(path), line)
    elif node.type == "use_wildcard":
        path = node.named_children[0] if node.named_child_count else None
        module = prefix + _segments(path)
        yield ImportRef("::".join(module), "*", "*", 0, line)
    elif node.type == "use_as_clause":
        path, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
        yield _rust_ref(prefix + _segments(path), _text(alias) if alias else None, line)
    elif node.type == "self" and prefix:  # `use a::{self}` binds `a`
        yield _rust_ref(prefix, None, line)
    elif segments := prefix + _segments(node):
        yield _rust_ref(segments, None, line)


def _rust_ref(path: list[str], alias: str | None, line: int) -> ImportRef:
    if len(path) == 1:
        return ImportRef(path[0], None, alias or path[0], 0, line)
    return ImportRef("::".join(path[:-1]), path[-1], alias or path[-1], 0, line)


def _segments(path: Node | None) -> list[str]:
    if path is None:
        return []
    return [part.strip() for part in _text(path).split("::") if part.strip()]


_JVM_NAMES = frozenset({"scoped_identifier", "qualified_identifier", "identifier"})


def _java_imports(node: Node) -> Iterator[ImportRef]:
    """`import a.b.C;` (Java), `import a.b.C as D` (Kotlin), `import a.b.*`."""
    names = [c for c in node.named_children if c.type in _JVM_NAMES]
    if not names:
        return
    parts = _dotted(names[0]).split(".")
    line = node.start_point.row + 1
    if any(child.type in ("*", "asterisk") for child in node.children):
        yield ImportRef(".".join(parts), "*", "*", 0, line)
        return
    alias = _text(names[1]) if len(names) > 1 else parts[-1]  # Kotlin's `as D`
    yield ImportRef(".".join(parts[:-1]), parts[-1], alias, 0, line)


# The nodes that import; their readers skip those that do not (`mod y {}`, a call not `require`).
_JS_IMPORTS = frozenset({"import_statement", "variable_declarator", "export_statement"})
_IMPORT_NODES = {
    "python": frozenset({"import_statement", "import_from_statement"}),
    "javascript": _JS_IMPORTS,
    "typescript": _JS_IMPORTS,
    "tsx": _JS_IMPORTS,
    "go": frozenset({"import_spec"}),
    "rust": frozenset({"use_declaration", "mod_item"}),
    "java": frozenset({"import_declaration"}),
    "kotlin": frozenset({"import"}),
}
_IMPORT_READERS: dict[str, Callable[[Node], Iterator[ImportRef]]] = {
    "python": _python_imports,
    "javascript": _js_imports,
    "typescript": _js_imports,
    "tsx": _js_imports,
    "go": _go_imports,
    "rust": _rust_imports,
    "java": _java_imports,
    "kotlin": _java_imports,
}


# --- Resolving imports to files ------------------------------------------------------------


class _PathIndex:
    """A collection's paths by their last components, so lookups need no scan of them all."""

    def __init__(self, paths: Iterable[str]) -> None:
        # Sorted, so that a package's files and same-named folders come in one order on
        # every run, not in a set's, which moves with the hash seed.
        self.paths: set[str] = set()
        self.by_tail: dict[str, list[str]] = {}  # "b.py" and "a/b.py" -> "src/a/b.py"
        self.files: dict[str, list[str]] = {}  # folder -> its files
        self.folders_by_name: dict[str, list[str]] = {}  # "b" -> "src/a/b"
        for path in sorted(paths):
            self.paths.add(path)
            parts = path.split("/")
            self.by_tail.setdefault(parts[-1], []).append(path)
            if len(parts) > 1:
                self.by_tail.setdefault("/".join(parts[-2:]), []).append(path)
            folder = "/".join(parts[:-1])
            if folder not in self.files:
                self.folders_by_name.setdefault(parts[-2] if folder else "", []).append(folder)
            self.files.setdefault(folder, []).append(path)

    def ending(self, suffix: str) -> list[str]:
        """Files whose path is ``suffix`` or ends with ``/suffix``."""
        tail = "/".join(suffix.split("/")[-2:])
        return [p for p in self.by_tail.get(tail, []) if p == suffix or p.endswith("/" + suffix)]

    def folders_ending(self, suffix: str) -> list[str]:
        last = suffix.rsplit("/", 1)[-1]
        folders = self.folders_by_name.get(last, [])
        return [f for f in folders if f == suffix or f.endswith("/" + suffix)]


def resolve_import(
    ref: ImportRef,
    importing_path: str,
    language: str,
    paths: Collection[str],
    project: Project | None = None,
) -> list[str]:
    """The files of ``paths`` (relative, "/"-separated) that ``ref`` points to; [] if none.

    Several when the target is ambiguous or spread over files (a Go package,
    a Java wildcard, Python's `from a import b` where ``b`` may be a submodule
    or a name in ``a``: the submodule's file comes first). Passing a frozenset
    keeps the lookup index built for it across calls. ``project`` is what the
    collection's go.mod and tsconfig.json files say (see projects.py).
    """
    resolver = _RESOLVERS.get(language)
    if resolver is None:
        return []
    index = _cached_index(paths) if isinstance(paths, frozenset) else _PathIndex(paths)
    return resolver(ref, importing_path, index, project or Project())


@functools.lru_cache(maxsize=4)
def _cached_index(paths: frozenset[str]) -> _PathIndex:
    return _PathIndex(paths)


def _resolve_python(
    ref: ImportRef, importing: str, index: _PathIndex, project: Project
) -> list[str]:
    found = _python_files(ref, importing, index)
    if found or ref.level or not project.root_name:
        return found
    # A package indexed from inside (`pip/_internal`) imports itself absolutely
    # (`pip._internal.utils.misc`): past the root's own name, the path is from the root.
    parts = ref.module.split(".")
    for at in range(len(parts)):  # `from email import utils` inside email/: at 0, rest ""
        if parts[at] == project.root_name:
            rest = dataclasses.replace(ref, module=".".join(parts[at + 1:]), level=1)
            found = _python_files(rest, _ROOT_MODULE, index)
            if found:
                return found
    return []


# A file at the collection's root: relative imports from it resolve against the root.
_ROOT_MODULE = "__init__.py"


def _python_files(ref: ImportRef, importing: str, index: _PathIndex) -> list[str]:
    module = [part for part in ref.module.split(".") if part]
    base: str | None = None
    if ref.level:
        base = _ancestor(posixpath.dirname(importing), ref.level - 1)
        if base is None:
            return []

    def files(parts: list[str]) -> list[str]:
        stem = "/".join(parts)
        candidates = [f"{stem}.py", f"{stem}/__init__.py"] if stem else ["__init__.py"]
        if base is None:
            return _closest([f for c in candidates for f in index.ending(c)], importing)
        return [f for c in candidates if (f := _join(base, c)) in index.paths]

    submodule = files([*module, ref.name]) if ref.name and ref.name != "*" else []
    own = files(module) if module or ref.level else []
    return list(dict.fromkeys(submodule + own))


_JS_EXTENSIONS = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs")


def _resolve_js(ref: ImportRef, importing: str, index: _PathIndex, project: Project) -> list[str]:
    """A relative specifier's file; a `#` one's where its package's ``imports`` map it; a
    bare one's where the nearest tsconfig.json maps it (``paths``, then ``baseUrl``), or
    else in a package of the collection named so (a monorepo's); other packages are not in
    the collection."""
    specifier = ref.module
    if specifier in (".", "..") or specifier.startswith(("./", "../")):
        return _js_file(posixpath.join(posixpath.dirname(importing), specifier), index)
    if specifier.startswith("#"):
        return _subpath_import_file(specifier, project.js_package_for(importing), index)
    config = project.ts_config_for(importing)
    found = _ts_config_file(specifier, config, index) if config is not None else []
    return found or _workspace_file(specifier, project, index)


def _ts_config_file(specifier: str, config: TsConfig, index: _PathIndex) -> list[str]:
    for target in _mapped(specifier, config.paths):
        if found := _js_file(target, index):
            return found
    return _js_file(_join(config.base, specifier), index) if config.base is not None else []


def _mapped(specifier: str, table: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The targets of the patterns of ``table`` (tsconfig ``paths``, package.json
    ``exports`` and ``imports``) that ``specifier`` matches, in order: itself, or with one
    `*` standing for any text."""
    found: list[str] = []
    for pattern, targets in table.items():
        head, star, tail = pattern.partition("*")
        if not star and specifier == pattern:
            found += targets
        elif star and specifier.startswith(head) and specifier.endswith(tail) \
                and len(specifier) >= len(head) + len(tail):
            middle = specifier[len(head):len(specifier) - len(tail)]
            found += [target.replace("*", middle, 1) for target in targets]
    return found


def _subpath_import_file(
    specifier: str, package: JsPackage | None, index: _PathIndex
) -> list[str]:
    """The file the ``imports`` of the package the code is part of map ``specifier`` to
    (`#core/utils` -> `./src/core/utils.ts`, or a build's output, from its source)."""
    if package is None:
        return []
    for target in _mapped(specifier, package.imports):
        entry = posixpath.relpath(target, package.folder or ".")
        if found := _package_file(package, entry, index):
            return found
    return []


# A declaration file's name (`index.d.ts`, `index.d.cts`) without its extension: `index`.
_DECLARATION_FILE = re.compile(r"\.d\.[cm]?ts$")


def _workspace_file(specifier: str, project: Project, index: _PathIndex) -> list[str]:
    """The file a package of the collection serves for ``specifier`` (`@acme/core`,
    `@acme/core/utils`): the entry its package.json names, or where that entry was built
    from, since a build's output is not indexed (`dist/esm/index.mjs` from `src/index.ts`);
    failing those, the same path under its `src/` or its folder."""
    for package in project.js_packages:
        if specifier != package.name and not specifier.startswith(package.name + "/"):
            continue
        subpath = "." + specifier[len(package.name):]
        entries = [posixpath.relpath(e, package.folder or ".") for e in
                   _mapped(subpath, package.entries)] + [subpath if subpath != "." else "index"]
        for entry in entries:
            if found := _package_file(package, entry, index):
                return found
    return []


def _package_file(package: JsPackage, entry: str, index: _PathIndex) -> list[str]:
    """The file of ``package`` that ``entry`` (a path in it) names, or that a build made it
    from: its leading folders dropped one by one, under `src/` (`dist/esm/a.mjs` -> `src/a.ts`)."""
    parts = _DECLARATION_FILE.sub("", entry).split("/")
    for start in range(len(parts)):
        rest = "/".join(parts[start:])
        for path in ([rest] if start == 0 else []) + [f"src/{rest}"]:
            if found := _js_file(_join(package.folder, path), index):
                return found
    return []


def _js_file(path: str, index: _PathIndex) -> list[str]:
    """The file a module path inside the collection names: itself, with an extension, or
    its folder's index file."""
    target = posixpath.normpath(path) if path else "."
    if target == ".." or target.startswith("../"):
        return []
    target = "" if target == "." else target
    stem, extension = posixpath.splitext(target)
    candidates = [target, *(target + e for e in _JS_EXTENSIONS)]
    if extension in _JS_EXTENSIONS:
        # TypeScript's ES modules import the compiled name: "./a.js" means a.ts.
        candidates += [stem + e for e in _JS_EXTENSIONS]
    candidates += [_join(target, "index" + e) for e in _JS_EXTENSIONS]
    return next(([c] for c in candidates if c in index.paths), [])


def _resolve_go(ref: ImportRef, importing: str, index: _PathIndex, project: Project) -> list[str]:
    """A package of a module the collection holds (its go.mod's `module` path, or a
    `replace` by a local folder); failing that, the package folder matching most
    trailing elements of the import path.

    Without a go.mod, a one-element path is the standard library's ("fmt") or a
    module's root, which folder names cannot tell: it resolves to nothing.
    """
    found = _go_module_package(ref.module, importing, index, project)
    if found is not None:
        return found
    parts = [part for part in ref.module.split("/") if part]
    if len(parts) < 2:
        return []
    for count in range(len(parts), 0, -1):
        files = go_package_files(_closest(index.folders_ending("/".join(parts[-count:])),
                                          importing), index)
        if files:
            return files
    return []


def _go_module_package(
    path: str, importing: str, index: _PathIndex, project: Project
) -> list[str] | None:
    """The files of the package ``path`` names in a module of the collection; None when no
    module's path leads it (the import is of another module)."""
    roots: list[tuple[str, str]] = []  # (module path, its folder)
    for module in project.go_modules:
        roots.append((module.path, module.folder))
        roots.extend(module.replaced.items())
    leading = [(prefix, folder) for prefix, folder in roots
               if path == prefix or path.startswith(prefix + "/")]
    if not leading:
        return None
    # The longest module path leads (a nested module owns its folder); of equals, the nearest.
    longest = max(len(prefix) for prefix, _ in leading)
    folders = [_join(folder, path[len(prefix) + 1:]) if path != prefix else folder
               for prefix, folder in leading if len(prefix) == longest]
    return go_package_files(_closest([f for f in folders if f in index.files], importing), index)


def go_package_files(folders: list[str], index: _PathIndex, tests: bool = False) -> list[str]:
    """The Go files of ``folders``; their tests (`_test.go`) only if ``tests``."""
    return [path for folder in folders for path in index.files.get(folder, [])
            if path.endswith(".go") and (tests or not path.endswith("_test.go"))]


def _resolve_rust(
    ref: ImportRef, importing: str, index: _PathIndex, project: Project
) -> list[str]:
    """The deepest module file on the path: `crate::a::b` is src/a/b.rs, else b in src/a.rs."""
    if ref.module.endswith(".rs"):  # `#[path = "unix/os.rs"] mod os;`
        file = rust_path_file(importing, ref.module)
        return [file] if file in index.paths else []
    path = [part for part in ref.module.split("::") if part]
    if ref.name and ref.name != "*":
        path.append(ref.name)
    if not path:
        return []
    base: str | None
    # A bare path (2018's `use a::b` for a child module `a`) names no item of this file.
    least = 1 if path[0] not in ("crate", "self", "super") else 0
    # A crate of the collection by its name (`use nom::branch::alt` in tests/): its `crate::`.
    named = next((c.source for c in project.rust_crates if c.name == path[0]), None)
    if named is not None and path[0] not in ("crate", "self", "super"):
        base, path, least = named, path[1:], 0
    elif path[0] == "crate":
        base, path = _crate_source(importing), path[1:]
        if base is None:
            return _rust_by_suffix(path, importing, index)
    else:
        # `self::`, `super::` and bare paths start at the importing module.
        base = _rust_module_folder(importing)
        while path and path[0] in ("self", "super") and base is not None:
            base = _ancestor(base, 1) if path[0] == "super" else base
            path = path[1:]
        if base is None:
            return []
    for count in range(len(path), least - 1, -1):
        found = [f for f in _rust_module_files(base, path[:count], project.rust_modules)
                 if f in index.paths]
        if found:
            return found
    return []


def _rust_module_files(
    base: str, path: list[str], placed: Mapping[str, tuple[str, ...]]
) -> list[str]:
    """Where the module ``path`` under the module folder ``base`` is written; ``placed``:
    the modules a `#[path]` puts elsewhere (``rust_modules_placed``), after the files at
    their place (cfg alternatives: `#[path = "hermit/mod.rs"] mod unix;` beside `mod unix;`)."""
    if path:
        stem = _join(base, "/".join(path))
        located = [f"{stem}.rs", f"{stem}/mod.rs"]
    elif posixpath.basename(base) == "src":
        return [_join(base, "lib.rs"), _join(base, "main.rs")]
    else:
        return [f"{base}.rs", _join(base, "mod.rs")]
    for count in range(len(path), 0, -1):
        files = placed.get(_join(base, "/".join(path[:count])), ())
        if files:
            # A module file a `#[path]` names holds its own modules beside it, as a mod.rs.
            return [*located, *(files if count == len(path) else (
                found for file in files
                for found in _rust_module_files(posixpath.dirname(file), path[count:], placed)))]
    return located


def rust_modules_placed(declared: Iterable[tuple[str, str, str]]) -> dict[str, tuple[str, ...]]:
    """Of each `#[path = "..."] mod name;` as (declaring file, path as written, name): the
    module's place as file locations would give it (`src/sys/os`) -> the files it is (one a
    cfg alternative: `#[cfg(windows)] #[path = "windows/sys.rs"] mod imp;`). Imports of
    other languages' files (`"./x.rs"` in a script) are skipped."""
    found: dict[str, tuple[str, ...]] = {}
    for file, written, name in declared:
        if not (file.endswith(".rs") and written.endswith(".rs")):
            continue
        place = _join(_rust_module_folder(file), name)
        found[place] = (*found.get(place, ()), rust_path_file(file, written))
    return found


def rust_modules_bound(
    imports: Iterable[tuple[str, ImportRef]], paths: Collection[str], project: Project
) -> dict[str, tuple[str, ...]]:
    """Of each `use` that binds a module (`pub use crate::graph_impl::stable_graph;` in
    lib.rs): the place its name gives the module in the importing one (`src/stable_graph`,
    so that `crate::stable_graph::StableGraph` reaches it) -> the module's files; as
    ``rust_modules_placed`` gives them, to put in ``project.rust_modules`` beside those."""
    found: dict[str, tuple[str, ...]] = {}
    for file, ref in imports:
        if ref.name in (None, "*"):
            continue
        modules = tuple(target for target in resolve_import(ref, file, "rust", paths, project)
                        if _rust_module_name(target) == ref.name)
        if modules:
            found.setdefault(_join(_rust_module_folder(file), ref.alias), modules)
    return found


def _rust_module_name(path: str) -> str:
    """The module a file is: `a/b.rs` and `a/b/mod.rs` are `b`."""
    folder, name = posixpath.split(path)
    return posixpath.basename(folder) if name == "mod.rs" else name.removesuffix(".rs")


def rust_path_file(declaring: str, written: str) -> str:
    """A `#[path]` outside inline modules is relative to the declaring file's folder."""
    return posixpath.normpath(_join(posixpath.dirname(declaring), written))


def _rust_module_folder(path: str) -> str:
    """The folder of a file's submodules: its own for mod.rs/lib.rs/main.rs, else one named
    after it (src/a.rs -> src/a)."""
    folder, name = posixpath.split(path)
    if name in ("mod.rs", "lib.rs", "main.rs"):
        return folder
    return _join(folder, posixpath.splitext(name)[0])


def _crate_source(path: str) -> str | None:
    """The `src` folder of the crate holding ``path``: the innermost `src` above it."""
    folders = path.split("/")[:-1]
    for at in range(len(folders) - 1, -1, -1):
        if folders[at] == "src":
            return "/".join(folders[: at + 1])
    return None


def _rust_by_suffix(path: list[str], importing: str, index: _PathIndex) -> list[str]:
    """`crate::` outside a `src` folder: any module file ending with the path."""
    for count in range(len(path), 0, -1):
        stem = "/".join(path[:count])
        found = _closest(index.ending(f"{stem}.rs") + index.ending(f"{stem}/mod.rs"), importing)
        if found:
            return found
    return []


_JVM_EXTENSIONS = (".java", ".kt")


def _resolve_jvm(ref: ImportRef, importing: str, index: _PathIndex, project: Project) -> list[str]:
    """`a.b.C` is a/b/C.java or .kt; a static import's `a.b.C.f` is C's file too.

    Kotlin files need not be named after what they declare: failing those, the
    files of the package's folder.
    """
    package = [part for part in ref.module.split(".") if part]
    if ref.name and ref.name != "*":
        for parts in ([*package, ref.name], package):
            stem = "/".join(parts)
            candidates = (
                [f for e in _JVM_EXTENSIONS for f in index.ending(stem + e)] if stem else []
            )
            if candidates:
                return _closest(candidates, importing)
    folders = _closest(index.folders_ending("/".join(package)), importing) if package else []
    return [f for folder in folders for f in index.files[folder] if f.endswith(_JVM_EXTENSIONS)]


def package_siblings(importing: str, language: str, paths: Collection[str]) -> list[str]:
    """The other files whose top-level names ``importing`` sees with no import: those of
    its package (Go's and Java's folder), tests only from a test. Check each one's
    ``package_clause``: a folder may hold a `package x_test` or a `main` too."""
    siblings = _SIBLINGS.get(language)
    if siblings is None:
        return []
    index = _cached_index(paths) if isinstance(paths, frozenset) else _PathIndex(paths)
    return [path for path in siblings(importing, index) if path != importing]


def _go_siblings(importing: str, index: _PathIndex) -> list[str]:
    return go_package_files([posixpath.dirname(importing)], index,
                            tests=importing.endswith("_test.go"))


def _java_siblings(importing: str, index: _PathIndex) -> list[str]:
    """The Java files of the folder (a package), and from a test those of the same folder in
    the main source set (Maven's and Gradle's `src/test/java/a/b` beside `src/main/java/a/b`)."""
    folder = posixpath.dirname(importing)
    main = f"/{folder}/".replace("/src/test/", "/src/main/", 1).strip("/")
    return [path for at in dict.fromkeys((folder, main)) for path in index.files.get(at, [])
            if path.endswith(".java")]


_SIBLINGS: dict[str, Callable[[str, _PathIndex], list[str]]] = {
    "go": _go_siblings,
    "java": _java_siblings,
}
# Languages where naming a class of the package binds it as an import would: Java's file
# sees its package's classes with no import, so a field's or a parameter's type far above
# the cursor (`private App app;`) is the dependency an `import` line is elsewhere. Not Go:
# a Go file names what it has already used, and the types its methods hang on.
_NAMING_BINDS_SIBLINGS = frozenset({"java"})


def naming_binds_siblings(language: str) -> bool:
    """Whether a ``language`` file that names a definition of its package imports it."""
    return language in _NAMING_BINDS_SIBLINGS


# Languages whose glob import also binds the names its module imported: Rust's `use
# super::*` takes the parent's `mod x;` and `use` items, Python's `from m import *` the
# names m imported. Not a re-export (`export * from`) nor Java's `import a.b.*` (a
# package's types only).
_GLOB_BINDS_IMPORTS = frozenset({"python", "rust"})


def glob_binds_imports(language: str) -> bool:
    """Whether a glob import in ``language`` binds what its module imported too."""
    return language in _GLOB_BINDS_IMPORTS


# Languages whose named import may bind a module of that name as well as a definition:
# Python's `from xml.etree import ElementTree`, Rust's `use crate::parse`. Elsewhere the
# file an import resolves to is where the name is defined, even when the file is named
# for it: Java's `import a.b.Widget` (Widget.java), TypeScript's `import { parse } from
# "./parse"`.
_IMPORTS_BIND_MODULES = frozenset({"python", "rust"})


def import_may_bind_module(language: str) -> bool:
    """Whether a named import in ``language`` may bind the module its name names."""
    return language in _IMPORTS_BIND_MODULES


# Import statements whose names become the importing module's own, reached through it as
# `m.x` wherever m is bound, by how they start: every import of a Python module, Rust's
# `pub use`, a JavaScript or TypeScript barrel's `export { x } from`. Go and Java pass
# nothing on.
_PASSES_ON = {"python": "", "rust": "pub", "javascript": "export", "typescript": "export",
              "tsx": "export"}


def import_passes_on(language: str, statement: str) -> bool:
    """Whether the import ``statement`` (its first line, stripped) in ``language`` makes the
    names it imports its module's own."""
    start = _PASSES_ON.get(language)
    return start is not None and statement.startswith(start)


# Modules a file reaches by a path with no import, by language: Rust's `super::f(` (the
# parent module) and `crate::f(` (the crate's root).
_IMPLICIT_HEADS: dict[str, tuple[str, ...]] = {"rust": ("super", "crate")}
# Heads a file reaches with no import that are not modules: Java's classes of its own
# package and of java.lang, capitalised by convention (`Bridge.CAPACITOR_HTTP_SCHEME` in a
# file of Bridge's package), whose members' uses rank a class's outline.
_UNIMPORTED_HEADS: dict[str, re.Pattern[str]] = {"java": re.compile(r"[A-Z]")}
# ... and those the project names: a Rust crate of the collection by its name, which its
# tests, examples and benches reach with no `use` (`syn::parse_str(`).
_PROJECT_HEADS: dict[str, Callable[[Project], Iterable[str]]] = {
    "rust": lambda project: (crate.name for crate in project.rust_crates),
}


def implicit_imports(language: str, project: Project) -> list[ImportRef]:
    """The modules any file of ``language`` may reach by path without importing them, as
    imports of the module itself (resolved from the importing file)."""
    named = _PROJECT_HEADS.get(language)
    heads = [*_IMPLICIT_HEADS.get(language, ()), *(named(project) if named else ())]
    return [ImportRef(head, None, head, 0, 0) for head in dict.fromkeys(heads)]


# The line that names a file's package, by language.
_PACKAGE_CLAUSE = {
    "go": re.compile(r"package[ \t]+(\w+)"),
    "java": re.compile(r"package[ \t]+([\w.]+)[ \t]*;"),
}


def package_clause(lines: Iterable[str], language: str) -> str | None:
    """The package ``lines`` (a file's, in order) declare; None if none or no such notion."""
    clause = _PACKAGE_CLAUSE.get(language)
    if clause is None:
        return None
    for line in lines:
        found = clause.match(line)
        if found:
            return found.group(1)
    return None


_RESOLVERS: dict[str, Callable[[ImportRef, str, _PathIndex, Project], list[str]]] = {
    "python": _resolve_python,
    "javascript": _resolve_js,
    "typescript": _resolve_js,
    "tsx": _resolve_js,
    "go": _resolve_go,
    "rust": _resolve_rust,
    "java": _resolve_jvm,
    "kotlin": _resolve_jvm,
}


def _closest(paths: list[str], importing: str) -> list[str]:
    """Those of ``paths`` sharing the most leading folders with ``importing``, sorted."""
    if len(paths) < 2:
        return paths
    home = importing.split("/")[:-1]

    def shared(path: str) -> int:
        # commonprefix compares lists element by element: folders, not characters.
        return len(posixpath.commonprefix([home, path.split("/")[:-1]]))

    best = max(shared(path) for path in paths)
    return sorted(path for path in paths if shared(path) == best)


def _ancestor(folder: str, up: int) -> str | None:
    """``folder`` ``up`` levels higher ("" is the root); None above the root."""
    parts = folder.split("/") if folder else []
    if up > len(parts):
        return None
    return "/".join(parts[: len(parts) - up])


def _join(folder: str, path: str) -> str:
    return f"{folder}/{path}" if folder else path


def _implemented(impl: Node) -> str | None:
    """The type a Rust `impl` is for, a borrowed one too: `impl IntoNeighbors for &'a List`
    gives List the methods that `g.neighbors(a)` with `g: &List` calls."""
    node = impl.child_by_field_name("type")
    while node is not None and node.type in ("reference_type", "pointer_type"):
        node = node.child_by_field_name("type")
    return _text(node).split("<")[0] if node is not None else _name(impl)


# --- Identifiers ---------------------------------------------------------------------------

# A name: JavaScript's and Java's may hold `$` (zod's `core.$ZodType`, RxJS's `source$`);
# elsewhere `$` is outside code (a string's `$HOME`) or a macro's (Rust's `$x`), no name a
# definition has, so one rule serves every language.
_NAME = r"(?:[^\W\d]|\$)[\w$]*"
# A name, or a chain of them joined by dots, or by `::` as Rust and C++ reach into a type or
# module (`NaiveDate::MAX`, `crate::group::parse_group`); not the tail of a number (`1e5`).
_CHAIN = re.compile(rf"(?<![\w$]){_NAME}(?:(?:\.|::){_NAME})*")
# Rust's type arguments between a path's names, nested once or twice: the turbofish of
# `StableGraph::<N, E>::new(` and `HashMap::<K, Vec<V>>::with_capacity(`.
_TURBOFISH = re.compile(r"::<[^<>\n]*(?:<[^<>\n]*(?:<[^<>\n]*>[^<>\n]*)*>[^<>\n]*)*>")


def without_turbofish(text: str) -> str:
    """``text`` with Rust's turbofishes taken out, so that `A::<T>::new` reads as `A::new`."""
    return _TURBOFISH.sub("", text)


# `head.member` (or `head::member`) where head starts a chain (not `a.head.member`).
_MEMBER = re.compile(rf"(?<![\w$.:])({_NAME})(?:\.|::)({_NAME})")
# A chain, its last `.`, `::` or `?.`, and the start of a name typed after it, at the end.
_ACCESS_AT_END = re.compile(
    rf"(?<![\w$.:])(?P<chain>{_NAME}(?:(?:\.|::){_NAME})*)(?:\.|::|\?\.)(?P<typed>[\w$]*)$")
# A name begun at the end, with no access before it.
_NAME_BEGUN = re.compile(rf"(?<![\w$.:]){_NAME}$")
# `.member(` on any value (`cmd.get_name()`, `a.b().len()`; Rust's `.collect::<T>()`).
_METHOD_CALL = re.compile(rf"\.\s*({_NAME})\s*(?:::\s*<[^()]*?>\s*)?\(")
# The head under which member_uses counts `.member(` calls through values of any kind:
# no name, so no import's alias can be it.
ANY_VALUE = "."


def member_uses(
    text: str, imports: Sequence[ImportRef], *, implicit: Iterable[str] = (),
    every_head: bool = False, unimported: re.Pattern[str] | None = None,
) -> dict[tuple[str, str], int]:
    """How often ``text`` reaches each member of a name it imports, or of an ``implicit``
    head (Rust's `super`), or of a head ``unimported`` matches (Java's classes): how this
    file uses a module or class (``events.get_running_loop()``), summed over the
    collection at query time. Under ``ANY_VALUE``, each `.member(` call through any value:
    how often the collection calls a method of that name.

    With ``every_head``, a file with a glob import (`use super::*`) counts every head: it
    may reach a module by a name the glob binds, which only the glob's module says
    (`mod verbatim;`)."""
    heads = {ref.alias.split(".")[0] for ref in imports} | set(implicit)
    every = every_head and any(ref.name == "*" for ref in imports)
    counts: Counter[tuple[str, str]] = Counter()
    for match in _MEMBER.finditer(without_turbofish(text)):
        head = match.group(1)
        if every or head in heads or (unimported is not None and unimported.match(head)):
            counts[(head, match.group(2))] += 1
    counts.update((ANY_VALUE, match.group(1)) for match in _METHOD_CALL.finditer(text))
    return dict(counts)


def access_at_end(text: str) -> tuple[str, str] | None:
    """The member access ``text`` ends in, as an editor's cursor is while a name is typed:
    `cmd.` gives ("cmd", ""), `crate::rt::cle` ("crate.rt", "cle"), a name begun with no
    access before it (`x = lo`) ("", "lo"); None when it ends in neither (`f(x).` reaches
    through a call, which no name holds)."""
    last = without_turbofish(text.rsplit("\n", 1)[-1])
    if (found := _ACCESS_AT_END.search(last)) is not None:
        return found["chain"].replace("::", "."), found["typed"]
    alone = _NAME_BEGUN.search(last)
    return None if alone is None else ("", alone.group())


def identifiers(text: str) -> list[tuple[str, int]]:
    """Each identifier of ``text`` with its 1-based line, in order.

    A dotted chain comes whole and then part by part: `client.get` gives
    "client.get", "client", "get"; a `::` path is a chain too: `Utc::now` gives
    "Utc.now", "Utc", "now"; a turbofish's type arguments come after their path:
    `Vec::<Item>::new` gives "Vec.new", "Vec", "new", "Item". Keywords, strings and
    comments are not told apart: callers look the names up, and a name that is no symbol
    finds nothing.
    """
    found: list[tuple[str, int]] = []
    for number, line in enumerate(text.split("\n"), 1):
        if "::<" in line:  # rare: most lines need no more passes
            arguments = "".join(f" {m.group()[3:-1]}" for m in _TURBOFISH.finditer(line))
            line = without_turbofish(line) + arguments
        for match in _CHAIN.finditer(line):
            chain = match.group().replace("::", ".")
            found.append((chain, number))
            if "." in chain:
                found.extend((part, number) for part in chain.split("."))
    return found
