"""Java cases: `Other.method(`, `new Other(`, `Other.CONSTANT`, `x.method(` of a declared type.

A file sees its package's classes (its sibling files' too), the classes it
imports (one by one or `pkg.*`) and the members it imports statically. A
variable's class is the type its declaration shows: a field, a parameter or a
local (`var x = new Other()` too).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from embedstore.evaluation.completion_cases.common import (
    Definition,
    FileUses,
    Use,
    line,
    matches,
    parse,
    preorder,
    text,
    use_of,
)

if TYPE_CHECKING:
    from tree_sitter import Node

    from embedstore.ingest.sources import SourceFile

_LANGUAGE = "java"
_TYPES = """
(program [(class_declaration) (interface_declaration) (enum_declaration) (record_declaration)]
         @type)
"""
_MEMBERS = """
[(method_declaration name: (identifier) @method)
 (field_declaration declarator: (variable_declarator name: (identifier) @constant))
 (constant_declaration declarator: (variable_declarator name: (identifier) @constant))
 (enum_constant name: (identifier) @constant)]
"""
_PACKAGE = re.compile(r"^\s*package\s+([\w.]+)\s*;", re.M)
_IMPORT = re.compile(r"^\s*import\s+(static\s+)?([\w.]+?)(\.\*)?\s*;", re.M)
_BODIES = frozenset({"class_body", "interface_body", "enum_body", "enum_body_declarations"})
_DECLARATIONS = ("field_declaration", "local_variable_declaration", "formal_parameter")


@dataclass
class _File:
    source: SourceFile
    root: Node
    package: str
    types: dict[str, Definition]


def find(root: Path, sources: Sequence[SourceFile]) -> list[FileUses]:
    files = []
    packages: dict[str, dict[str, Definition]] = {}
    for source in sources:
        tree = parse(_LANGUAGE, source.text)
        if tree is None:
            continue
        declared = _PACKAGE.search(source.text)
        file = _File(source, tree, declared.group(1) if declared else "", _types(source, tree))
        files.append(file)
        for name, definition in file.types.items():
            packages.setdefault(file.package, {}).setdefault(name, definition)
    return [FileUses(f.source.rel_path, f.source.text, _uses(f, packages)) for f in files]


def _types(source: SourceFile, root: Node) -> dict[str, Definition]:
    """The file's top-level classes, interfaces, enums and records, with their members."""
    found = {}
    for match in matches(_LANGUAGE, _TYPES, root):
        node = match["type"][0]
        name, body = node.child_by_field_name("name"), node.child_by_field_name("body")
        if name is None or body is None:
            continue
        cls = Definition(source.rel_path, line(name), text(name), "class")
        for member in matches(_LANGUAGE, _MEMBERS, body):
            kind, nodes = next(iter(member.items()))
            if _owner(nodes[0]) == node:  # not a nested class's, nor a local's
                own = text(nodes[0])
                cls.members.setdefault(own, Definition(
                    source.rel_path, line(nodes[0]), f"{cls.name}.{own}", kind))
        found[cls.name] = cls
    return found


def _owner(name: Node) -> Node | None:
    """The type declaration whose body declares the member named by ``name``."""
    declaration = name.parent
    if declaration is not None and declaration.type == "variable_declarator":
        declaration = declaration.parent
    owner = declaration.parent if declaration is not None else None
    while owner is not None and owner.type in _BODIES:
        owner = owner.parent
    return owner


def _scope(file: _File, packages: dict[str, dict[str, Definition]]
           ) -> tuple[dict[str, Definition], dict[str, Definition]]:
    """(classes by simple name, statically imported members by name) the file sees."""
    classes = dict(packages.get(file.package, {}))
    members: dict[str, Definition] = {}

    def class_named(qualified: str) -> Definition | None:
        package, _, simple = qualified.rpartition(".")
        return packages.get(package, {}).get(simple)

    for static, name, wildcard in _IMPORT.findall(file.source.text):
        if static and wildcard:  # `import static a.C.*`
            members.update(cls.members if (cls := class_named(name)) else {})
        elif static:  # `import static a.C.m`
            owner, _, member = name.rpartition(".")
            cls = class_named(owner)
            if cls is not None and member in cls.members:
                members[member] = cls.members[member]
        elif wildcard:
            for simple, cls in packages.get(name, {}).items():
                classes.setdefault(simple, cls)
        elif (cls := class_named(name)) is not None:
            classes[cls.name] = cls
    classes.update(file.types)
    return classes, members


def _uses(file: _File, packages: dict[str, dict[str, Definition]]) -> list[Use]:
    classes, imported_members = _scope(file, packages)
    found: list[Use] = []
    for declaration in file.root.children:
        if declaration.type in ("package_declaration", "import_declaration"):
            continue
        typed: dict[str, Definition] = {}
        for node in preorder(declaration):
            if node.type in _DECLARATIONS:
                _learn(node, classes, typed)
            resolved = _resolve(node, classes, imported_members, typed)
            if resolved is None:
                continue
            target, name, called = resolved
            found_use = use_of(name, target, called)
            if found_use is not None:
                found.append(found_use)
    return found


def _resolve(node: Node, classes: dict[str, Definition], imported: dict[str, Definition],
             typed: dict[str, Definition]) -> tuple[Definition, Node, bool] | None:
    """(definition, the name node, whether it is called) of a use at ``node``."""
    if node.type == "object_creation_expression":
        shown = node.child_by_field_name("type")
        cls = _class_of(shown, classes) if shown is not None else None
        return (cls, shown, True) if cls is not None and shown is not None else None
    if node.type in ("method_invocation", "field_access"):
        owner = node.child_by_field_name("object")
        name = node.child_by_field_name("name" if node.type == "method_invocation" else "field")
        if name is None:
            return None
        if owner is None:
            found = imported.get(text(name))
        elif owner.type == "identifier":
            cls = typed.get(text(owner)) or classes.get(text(owner))
            found = cls.members.get(text(name)) if cls is not None else None
        else:
            return None
        return (found, name, node.type == "method_invocation") if found is not None else None
    parent = node.parent
    if node.type == "identifier" and parent is not None \
            and parent.type not in ("method_invocation", "field_access") \
            and parent.child_by_field_name("name") != node:  # not a declaration's own name
        found = imported.get(text(node))
        return (found, node, False) if found is not None else None
    return None


def _learn(node: Node, classes: dict[str, Definition], typed: dict[str, Definition]) -> None:
    shown = node.child_by_field_name("type")
    if shown is None:
        return
    if node.type == "formal_parameter":
        names = [node.child_by_field_name("name")]
        values: list[Node | None] = [None]
    else:
        declarators = node.children_by_field_name("declarator")
        names = [d.child_by_field_name("name") for d in declarators]
        values = [d.child_by_field_name("value") for d in declarators]
    for name, value in zip(names, values, strict=True):
        made = shown
        if text(shown) == "var" and value is not None \
                and value.type == "object_creation_expression":
            made = value.child_by_field_name("type") or shown
        cls = _class_of(made, classes)
        if name is not None and cls is not None:
            typed[text(name)] = cls


def _class_of(node: Node, classes: dict[str, Definition]) -> Definition | None:
    if node.type == "generic_type":
        node = node.named_children[0]
    return classes.get(text(node)) if node.type == "type_identifier" else None
