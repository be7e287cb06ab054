"""Go cases: `pkg.F(`, a sibling file's `F(`, `x.Method(` of a known type, `pkg.Const`.

A package is the files of one folder with one package clause; all of them share
one scope (`_test.go` files see the others, not the other way round). An import
path resolves inside the repository through the nearest `go.mod`'s module path.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from embedstore.evaluation.completion_cases.common import (
    Definition,
    FileUses,
    Use,
    captures,
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

_LANGUAGE = "go"
# Package-level definitions only: the patterns are anchored at the file's root.
_DEFINITIONS = """
(source_file (function_declaration name: (identifier) @function))
(source_file (method_declaration receiver: (parameter_list) @receiver
                                 name: (field_identifier) @method))
(source_file (type_declaration (type_spec name: (type_identifier) @class)))
(source_file (type_declaration (type_alias name: (type_identifier) @class)))
(source_file (const_declaration (const_spec name: (identifier) @constant)))
(source_file (var_declaration (var_spec name: (identifier) @constant)))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @constant))))
"""
_IMPORTS = """
(import_spec name: (_)? @alias path: (_) @path)
"""
# Names a function declares (parameters, `:=`, `var`, `range`): they hide package-level ones.
_LOCALS = """
(parameter_declaration name: (identifier) @local)
(variadic_parameter_declaration name: (identifier) @local)
(short_var_declaration left: (expression_list (identifier) @local))
(var_spec name: (identifier) @local)
(const_spec name: (identifier) @local)
(range_clause left: (expression_list (identifier) @local))
"""
_MODULE = re.compile(r"^module\s+(\S+)", re.MULTILINE)
_FUNCTIONS = ("function_declaration", "method_declaration")


@dataclass
class _Package:
    name: str
    definitions: dict[str, Definition] = field(default_factory=dict)
    test_definitions: dict[str, Definition] = field(default_factory=dict)  # `_test.go` files'


@dataclass
class _File:
    source: SourceFile
    root: Node
    package: str
    # The package-level names the file defines itself (methods aside): its own, whatever a
    # sibling defines, as files built under opposite constraints (`//go:build nomsgpack`)
    # define the same names.
    own: set[str] = field(default_factory=set)


def find(root: Path, sources: Sequence[SourceFile]) -> list[FileUses]:
    modules = _modules(sources)
    files = []
    for source in sources:
        tree = parse(_LANGUAGE, source.text)
        clause = next((c for c in tree.children if c.type == "package_clause"), None) \
            if tree is not None else None
        if tree is not None and clause is not None:
            files.append(_File(source, tree, text(clause.named_children[0])))
    packages: dict[tuple[str, str], _Package] = {}
    methods: list[tuple[_Package, str, Definition]] = []
    for file in files:
        package = packages.setdefault(_key(file), _Package(file.package))
        methods += [(package, *found) for found in _add_definitions(file, package)]
    # Once every file's types are known: a method may come before its type's file.
    for package, receiver, method in methods:
        owner = package.definitions.get(receiver) or package.test_definitions.get(receiver)
        if owner is not None:
            owner.members.setdefault(method.name.rpartition(".")[2], method)
    return [FileUses(f.source.rel_path, f.source.text, _uses(f, packages, modules))
            for f in files]


def _key(file: _File) -> tuple[str, str]:
    return str(PurePosixPath(file.source.rel_path).parent), file.package


def _is_test(path: str) -> bool:
    return path.endswith("_test.go")


def _modules(sources: Sequence[SourceFile]) -> dict[str, str]:
    """Module path -> its folder, relative to the repository ("." at the top)."""
    found = {}
    for source in sources:
        folder = PurePosixPath(source.rel_path).parent
        mod = source.path.parent / "go.mod"
        if mod.is_file() and (match := _MODULE.search(mod.read_text(errors="replace"))):
            found[match.group(1)] = str(folder)
    return found


def _add_definitions(file: _File, package: _Package) -> list[tuple[str, Definition]]:
    """Adds the file's package-level definitions; returns its methods, by receiver type."""
    path = file.source.rel_path
    table = package.test_definitions if _is_test(path) else package.definitions
    methods: list[tuple[str, Definition]] = []
    for match in matches(_LANGUAGE, _DEFINITIONS, file.root):
        kind, nodes = next((k, v) for k, v in match.items() if k != "receiver")
        name = text(nodes[0])
        if name == "_":  # `var _ Flag = (*BoolFlag)(nil)`: the blank identifier names nothing
            continue
        if kind == "method":
            receiver = _type_name(match["receiver"][0])
            if receiver:
                methods.append((receiver, Definition(path, line(nodes[0]),
                                                     f"{receiver}.{name}", "method")))
            continue
        file.own.add(name)
        table.setdefault(name, Definition(path, line(nodes[0]), name, kind))
    return methods


def _type_name(node: Node) -> str | None:
    """The named type of a receiver or parameter type: `T`, `*T`, `T[K]`; None otherwise."""
    for inner in preorder(node):
        if inner.type == "type_identifier":
            return text(inner)
        if inner.type in ("qualified_type", "function_type", "map_type", "slice_type"):
            return None
    return None


def _uses(
    file: _File, packages: dict[tuple[str, str], _Package], modules: dict[str, str]
) -> list[Use]:
    home = packages[_key(file)]
    in_test = _is_test(file.source.rel_path)
    scope = {**home.definitions, **(home.test_definitions if in_test else {})}
    imported = _imports(file, packages, modules)
    found: list[Use] = []
    for declaration in file.root.children:
        hidden = set(captures(_LANGUAGE, _LOCALS, declaration).get("local", []))
        locals_ = {text(n) for n in hidden} | file.own
        typed = _typed_variables(declaration, scope, imported) \
            if declaration.type in _FUNCTIONS else {}
        for node in preorder(declaration):
            target = _resolve(node, scope, imported, locals_, typed)
            if target is None or target.path == file.source.rel_path or node in hidden:
                continue
            name = node.child_by_field_name("field") or node
            found_use = use_of(name, target, _called(node))
            if found_use is not None:
                found.append(found_use)
    return found


def _called(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "call_expression" and \
        parent.child_by_field_name("function") == node


def _resolve(
    node: Node, scope: dict[str, Definition], imported: dict[str, _Package],
    locals_: set[str], typed: dict[str, Definition],
) -> Definition | None:
    """What an identifier or `a.b` selector names, when it is a definition of the repository."""
    if node.type == "identifier":
        parent = node.parent
        if parent is not None and parent.type == "selector_expression":
            return None  # the operand of `a.b`: `a.b` itself is resolved
        name = text(node)
        return None if name in locals_ else scope.get(name)
    if node.type != "selector_expression":
        return None
    operand, member = node.child_by_field_name("operand"), node.child_by_field_name("field")
    if operand is None or member is None or operand.type != "identifier":
        return None
    name = text(operand)
    if name in typed:
        return typed[name].members.get(text(member))
    if name in imported and name not in locals_:
        return imported[name].definitions.get(text(member))
    return None


def _imports(
    file: _File, packages: dict[tuple[str, str], _Package], modules: dict[str, str]
) -> dict[str, _Package]:
    """The repository's packages this file imports, by the name it calls them."""
    by_folder: dict[str, list[_Package]] = {}
    for (folder, _), package in packages.items():
        by_folder.setdefault(folder, []).append(package)
    found: dict[str, _Package] = {}
    for match in matches(_LANGUAGE, _IMPORTS, file.root):
        path = text(match["path"][0]).strip('"`')
        target = _folder_of(path, modules)
        candidates = [p for p in by_folder.get(target, [])
                      if not p.name.endswith("_test")] if target is not None else []
        if not candidates:
            continue
        alias = text(match["alias"][0]) if "alias" in match else candidates[0].name
        if alias not in ("_", "."):
            found[alias] = candidates[0]
    return found


def _folder_of(import_path: str, modules: dict[str, str]) -> str | None:
    for module, folder in sorted(modules.items(), key=lambda m: -len(m[0])):
        if import_path == module or import_path.startswith(module + "/"):
            rest = import_path[len(module):].lstrip("/")
            return str(PurePosixPath(folder) / rest) if rest else folder
    return None


def _typed_variables(
    function: Node, scope: dict[str, Definition], imported: dict[str, _Package]
) -> dict[str, Definition]:
    """Variables whose type a declaration shows: the receiver, parameters, `var x T`,
    `x := T{...}` and `x := &pkg.T{...}`."""
    found: dict[str, Definition] = {}
    for node in preorder(function):
        if node.type in ("parameter_declaration", "var_spec"):
            names = node.children_by_field_name("name")
            shown = node.child_by_field_name("type")
        elif node.type == "short_var_declaration":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is None or right is None or left.named_child_count != 1:
                continue
            names, value = left.named_children, right.named_children[0]
            if value.type == "unary_expression":
                value = value.child_by_field_name("operand") or value
            shown = value.child_by_field_name("type") if value.type == "composite_literal" \
                else None
        else:
            continue
        cls = _named_type(shown, scope, imported) if shown is not None else None
        if cls is not None:
            for name in names:
                found[text(name)] = cls
    return found


def _named_type(
    node: Node, scope: dict[str, Definition], imported: dict[str, _Package]
) -> Definition | None:
    if node.type in ("pointer_type", "generic_type"):
        inner = node.named_children[0] if node.type == "pointer_type" \
            else node.child_by_field_name("type")
        return _named_type(inner, scope, imported) if inner is not None else None
    if node.type == "type_identifier":
        found = scope.get(text(node))
    elif node.type == "qualified_type":
        package = imported.get(text(node.child_by_field_name("package")))
        found = package.definitions.get(text(node.child_by_field_name("name"))) \
            if package else None
    else:
        return None
    return found if found is not None and found.kind == "class" else None
