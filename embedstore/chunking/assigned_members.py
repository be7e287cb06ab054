"""JavaScript's definitions by assignment, the shape of CommonJS and pre-`class` code.

`exports.compileETag = function (val) {...}` and `module.exports.MAX = 5` define what a
module exports; `Layer.prototype.match = function match(path) {...}` a method of the
constructor `Layer`; `app.init = function init() {...}` a method of an object the module
builds. Express, and much of npm, is written so: without this, such a file has no named
definition, and search and code-at-cursor see one unnamed run of code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from embedstore.chunking.grammars import FUNCTION_VALUES

if TYPE_CHECKING:
    from tree_sitter import Node

# `exports.x` and `module.exports.x`: what the module exports, at its top level.
_EXPORTS = (("exports",), ("module", "exports"))
# Heads whose members are no definitions of this file: `this.x = ...` in a constructor is
# an instance's field, `module.exports = f` the module's whole export.
_NOT_OWNERS = frozenset({"this", "module", "exports", "window", "globalThis", "self"})


@dataclass(frozen=True)
class AssignedMember:
    owner: str | None  # None: a name the module exports
    name_node: Node
    value: Node  # the assigned expression
    function: bool  # a function expression, so a function or a method

    @property
    def name(self) -> str:
        return _text(self.name_node)


def assigned_member(statement: Node) -> AssignedMember | None:
    """The definition a top-level expression statement makes by assignment, if any."""
    found = _assignment(statement)
    if found is None:
        return None
    path, left, value = found
    head = tuple(path[:-1])
    function = value.type in FUNCTION_VALUES
    if tuple(path) in _EXPORTS:  # `module.exports = function getCallers () {...}`
        named = value.child_by_field_name("name") if function else None
        return AssignedMember(None, named, value, True) if named is not None else None
    name_node = left.child_by_field_name("property")
    if name_node is None:
        return None
    if head in _EXPORTS:
        return AssignedMember(None, name_node, value, function)
    prototype = len(head) == 2 and head[1] == "prototype"
    # `app.locals = ...` sets state: of an object's members only a function is defined so.
    if head[0] in _NOT_OWNERS or not (prototype or (len(head) == 1 and function)):
        return None
    return AssignedMember(head[0], name_node, value, function)


def commonjs_exported(root: Node) -> frozenset[str]:
    """The module's own top-level names that CommonJS exports: `module.exports = { a, b: c }`
    exports a and c, `exports.x = y` and `module.exports = y` export y."""
    names: set[str] = set()
    for statement in root.named_children:
        found = _assignment(statement)
        if found is None:
            continue
        path, _, value = found
        whole = tuple(path) in _EXPORTS
        if not whole and tuple(path[:-1]) not in _EXPORTS:
            continue
        if value.type == "identifier":
            names.add(_text(value))
        elif value.type == "object" and whole:
            for entry in value.named_children:
                local = entry if entry.type == "shorthand_property_identifier" \
                    else entry.child_by_field_name("value") if entry.type == "pair" else None
                if local is not None and local.type in ("identifier",
                                                        "shorthand_property_identifier"):
                    names.add(_text(local))
    return frozenset(names)


def _assignment(statement: Node) -> tuple[list[str], Node, Node] | None:
    """(the dotted target as names, the target, the value) of `a.b.c = value;`."""
    assignment = statement.named_children[0] \
        if statement.type == "expression_statement" and statement.named_child_count else None
    if assignment is None or assignment.type != "assignment_expression":
        return None
    left, value = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    path = _dotted(left)
    if left is None or value is None or path is None or len(path) < 2:
        return None
    return path, left, value


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def _dotted(node: Node | None) -> list[str] | None:
    """`a.b.c` as ["a", "b", "c"]; None for anything but names joined by dots."""
    parts: list[str] = []
    while node is not None and node.type == "member_expression":
        prop = node.child_by_field_name("property")
        if prop is None or prop.type != "property_identifier":
            return None
        parts.append(_text(prop))
        node = node.child_by_field_name("object")
    if node is None or node.type != "identifier" or not node.text:
        return None
    parts.append(_text(node))
    return parts[::-1]
