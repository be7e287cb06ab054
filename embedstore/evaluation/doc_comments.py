"""Doc comments of functions in languages other than Python, read with tree-sitter.

A doc comment is the comment a language's documentation tools attach to the
definition right below it: one ``/** ... */`` block (JSDoc, Javadoc, KDoc,
Scaladoc, PHPDoc) or a run of ``///`` (Rust, C#, Swift) or ``//`` lines (Go),
with no blank line before the definition or the attributes above it. Which
nodes are functions comes from the chunker's grammar table, so both agree on
what a definition is.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from embedstore.chunking.assigned_members import assigned_member
from embedstore.chunking.grammars import FUNCTION_VALUES, GRAMMARS, Grammar
from embedstore.chunking.treesitter import end_row, parser_for

if TYPE_CHECKING:
    from tree_sitter import Node

_BLOCK = "/**"


@dataclass(frozen=True)
class DocStyle:
    marker: str  # how a doc comment opens: `/**` is one block, anything else a run of lines
    # Nodes that may stand between the doc comment and its definition (`#[inline]`).
    attributes: frozenset[str] = frozenset()
    # A marker that opens an ordinary comment although it starts with ``marker`` (`////`).
    not_doc: str | None = None


_JSDOC = DocStyle(_BLOCK, attributes=frozenset({"decorator"}))
DOC_STYLES: dict[str, DocStyle] = {
    "javascript": _JSDOC,
    "typescript": _JSDOC,
    "tsx": _JSDOC,
    "java": DocStyle(_BLOCK),
    "kotlin": DocStyle(_BLOCK),
    "scala": DocStyle(_BLOCK),
    "php": DocStyle(_BLOCK),
    "go": DocStyle("//"),
    "rust": DocStyle("///", attributes=frozenset({"attribute_item"}), not_doc="////"),
    "csharp": DocStyle("///", not_doc="////"),
    "swift": DocStyle("///", not_doc="////"),
}

# Block comment decoration: the opening, the closing and each line's leading `*`.
_BLOCK_DECORATION = re.compile(r"^\s*/\*\*+|\*+/\s*$|^\s*\*(?!/) ?", re.MULTILINE)
# `{@link Cache#get}`, `<see cref="Cache#get"/>`, `[Cache#get]` and `[Cache#get](url)`
# all become `Cache#get`.
_INLINE_TAG = re.compile(
    r"\{@\w+\s+([^}]*)\}|<\w+\s+\w+=\"([^\"]*)\"\s*/>|\[([^\]\n]+)\](?:\([^)\n]*\))?"
)
_MARKUP_TAG = re.compile(r"</?\w+[^<>]*>")
# Block tags whose text is the description, and those whose text is prose about
# something else (a parameter, the result, an example) that may run over several lines.
_DESCRIPTION_TAGS = frozenset({"description", "desc", "summary", "classdesc"})
_PROSE_TAGS = frozenset({
    "param", "arg", "argument", "property", "prop", "returns", "return", "yields", "throws",
    "exception", "example", "see", "deprecated", "remarks", "privateRemarks", "note", "todo",
    "default", "defaultValue", "typeParam", "template",
})
_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.DOTALL)


@dataclass(frozen=True)
class Documented:
    """A function with a doc comment; rows are 0-based and inclusive."""

    doc: str  # the comment's prose, decoration and tags removed
    doc_rows: tuple[int, int]
    symbol: str
    # The definition, from its attributes or decorators (or its first overload signature),
    # without the doc.
    rows: tuple[int, int]
    name_row: int  # the row of its name: what a strict hit must contain


def documented_functions(text: str, language: str) -> list[Documented]:
    """The functions of ``text`` that have a doc comment; [] when unreadable or not supported."""
    style = DOC_STYLES.get(language)
    parser = parser_for(language) if style else None
    if style is None or parser is None:
        return []
    tree = parser.parse(text.encode("utf-8", errors="replace"))
    reader = _Reader(GRAMMARS[language], style, text.split("\n"))
    found: list[Documented] = []
    nodes = [tree.root_node]
    while nodes:
        node = nodes.pop()
        nodes.extend(reversed(node.children))
        documented = reader.read(node)
        if documented is not None:
            found.append(documented)
    return found


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


class _Reader:
    def __init__(self, grammar: Grammar, style: DocStyle, lines: list[str]) -> None:
        self.grammar = grammar
        self.style = style
        self.lines = lines
        self.functions = {t for t, kind in grammar.kinds.items() if kind in ("function", "method")}
        self.definitions = self.functions | grammar.signatures

    def read(self, node: Node) -> Documented | None:
        name = self._name(node)
        if name is None:
            return None
        outer = self._outer(node)
        first = outer.start_point.row
        above = outer.prev_sibling
        while (
            above is not None
            and above.type in self.style.attributes
            and end_row(above) == first - 1
        ):
            first = above.start_point.row
            above = above.prev_sibling
        comments = self._doc_comments(above, first - 1)
        if not comments:
            return None
        doc_rows = (comments[0].start_point.row, end_row(comments[-1]))
        doc = self._prose([_text(comment) for comment in comments])
        rows = (self._overloads_start(outer, _text(name), first), end_row(outer))
        return Documented(doc, doc_rows, _text(name), rows, name.start_point.row)

    def _overloads_start(self, outer: Node, name: str, first: int) -> int:
        """Where the definition starts with the overload signatures of its name right
        above it (comments between): one function, whichever of them the doc is on."""
        node = outer.prev_named_sibling
        while node is not None:
            if node.type not in self.grammar.leading:
                inner, named = self._declared(node)
                if named != name or inner.type not in self.grammar.signatures:
                    break
                first = node.start_point.row
            node = node.prev_named_sibling
        return first

    def _name(self, node: Node) -> Node | None:
        """The name of the function ``node`` defines, or None when it defines none."""
        if node.type in self.functions:
            return node.child_by_field_name("name")
        if node.type in self.grammar.signatures:  # an overload, documented on its own
            name = node.child_by_field_name("name")
            return name if name is not None and self._implemented(node, _text(name)) else None
        if node.type in self.grammar.bindings:  # `const load = async () => {...}`
            for declarator in node.named_children:
                value = declarator.child_by_field_name("value")
                if value is not None and value.type in FUNCTION_VALUES:
                    return declarator.child_by_field_name("name")
        if self.grammar.assigned_members and node.type == "expression_statement" \
                and node.parent is not None and node.parent.type == "program":
            assigned = assigned_member(node)  # `exports.load = function () {...}`
            return assigned.name_node if assigned is not None and assigned.function else None
        return None

    def _implemented(self, signature: Node, name: str) -> bool:
        """Whether the overload ``signature`` is followed by the function it declares.

        Only then is it part of a definition (the chunker folds the two); an
        interface's method signatures and a `.d.ts` file's declarations are not.
        """
        node = self._outer(signature).next_named_sibling
        while node is not None:
            if node.type not in self.grammar.leading:
                inner, named = self._declared(node)
                if named != name or inner.type not in self.definitions:
                    return False
                if inner.type in self.functions:
                    return True
            node = node.next_named_sibling
        return False

    def _outer(self, node: Node) -> Node:
        """``node`` with the wrappers around it (`export`, decorators)."""
        while node.parent is not None and node.parent.type in self.grammar.wrappers:
            node = node.parent
        return node

    def _declared(self, node: Node) -> tuple[Node, str | None]:
        """The declaration inside ``node``'s wrappers, and the name it declares."""
        inner = self._inner(node)
        named = inner.child_by_field_name("name")
        return inner, None if named is None else _text(named)

    def _inner(self, node: Node) -> Node:
        """The declaration inside the wrappers ``node`` may be."""
        while node.type in self.grammar.wrappers:
            inside = [c for c in node.named_children if c.type in self.definitions]
            if not inside:
                return node
            node = inside[0]
        return node

    def _doc_comments(self, node: Node | None, last_row: int) -> list[Node]:
        """The doc comment ending on ``last_row`` that ``node`` ends, as its comment nodes."""
        comments: list[Node] = []
        while node is not None and self._is_doc(node) and end_row(node) == last_row:
            comments.insert(0, node)
            if self.style.marker == _BLOCK:
                break
            last_row = node.start_point.row - 1
            node = node.prev_sibling
        return comments

    def _is_doc(self, node: Node) -> bool:
        if node.type not in self.grammar.leading:
            return False
        row, column = node.start_point
        text = _text(node)
        opens = text.startswith(self.style.marker) and not (
            self.style.not_doc and text.startswith(self.style.not_doc)
        )
        # `/**/` is empty; code before the comment on its row makes it a trailing comment.
        return opens and text != "/**/" and not self.lines[row][:column].strip()

    def _prose(self, comments: list[str]) -> str:
        """The text of a doc comment, up to its first tag line (`@param`...)."""
        if self.style.marker == _BLOCK:
            raw = _BLOCK_DECORATION.sub("", comments[0])
        else:
            width = len(self.style.marker)
            raw = "\n".join(line.rstrip()[width:].removeprefix(" ") for line in comments)
        summary = _SUMMARY.search(raw)  # C#'s XML docs: the summary is the description
        if summary:
            raw = summary.group(1)
        text = _INLINE_TAG.sub(_tag_target, _description(raw.split("\n")))
        return _MARKUP_TAG.sub("", text).strip()


def _description(lines: list[str]) -> str:
    """The description of a doc comment: the lines before its first tag line (`@param`...).

    A block that opens with tags (`@internal`, `@name f`) has its description
    after them: there, tag lines are skipped, the text of a description tag
    (`@description`) is kept, and a prose tag's text (`@param x the ...`) runs on
    until a blank line (an `@example` until the next tag) and is skipped too.
    """
    lead = list(itertools.takewhile(lambda line: not line.strip().startswith("@"), lines))
    if any(line.strip() for line in lead):
        return "\n".join(lead)
    kept: list[str] = []
    skipping = ""  # the prose tag whose text the lines still are
    for line in lines:
        words = line.split(maxsplit=1)
        tag = words[0][1:] if words and words[0].startswith("@") else None
        if tag is not None:
            if tag in _DESCRIPTION_TAGS:
                kept.append(words[1] if len(words) > 1 else "")
            skipping = tag if tag in _PROSE_TAGS else ""
        elif not line.strip() and skipping != "example":
            skipping = ""
            kept.append(line)
        elif not skipping:
            kept.append(line)
    return "\n".join(kept).strip()


def _tag_target(match: re.Match[str]) -> str:
    return next(group for group in match.groups() if group is not None)
