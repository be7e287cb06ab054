"""Rust cases: `module::f(`, `Name::new(`, a `use`d `f(`, `x.method(` of a known type, constants.

A file's module path comes from where it lies under its crate's `src/` (`a/b.rs`
and `a/b/mod.rs` are `crate::a::b`); files elsewhere (`tests/`, `examples/`) are
crates of their own that reach the library by its name; a `mod` that a `#[path]`
places, where no file lies at its place, is the file it names. `use` paths resolve
through `crate::`, `self::`, `super::`, the library's name and the names a module
has in scope, `pub use` re-exports and globs followed. Methods and associated
constants are members of the type their `impl` names. A variable's type is known
from `x: T`, `let x = T { .. }` or `T::new(..)`, `self` from its `impl`, and a field of
`self` (`self.map.insert(`) from its type's struct (`map: IndexMap<K, V>`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from embedstore.chunking.symbols import rust_path_attribute, rust_path_file
from embedstore.evaluation.completion_cases.common import (
    Definition,
    FileUses,
    Use,
    line,
    parse,
    preorder,
    text,
    use_of,
)

if TYPE_CHECKING:
    from tree_sitter import Node

    from embedstore.ingest.sources import SourceFile

_LANGUAGE = "rust"
# A module's own items; `impl` blocks give their type members.
_ITEMS = {
    "function_item": "function",
    "struct_item": "class",
    "enum_item": "class",
    "union_item": "class",
    "trait_item": "class",
    "type_item": "class",
    "const_item": "constant",
    "static_item": "constant",
}
_PACKAGE_NAME = re.compile(r'^\[(?:package|lib)\][^\[]*?^name\s*=\s*"([^"]+)"', re.M | re.S)
_CONSTRUCTORS = frozenset({"new", "default", "from", "with_capacity"})

_Path = tuple[str, ...]


@dataclass(frozen=True)
class _ModuleRef:
    key: tuple[str, _Path]  # (crate, module path)


_Binding = Definition | _ModuleRef


@dataclass
class _Module:
    source: SourceFile
    root: Node
    crate: str
    path: _Path
    definitions: dict[str, Definition] = field(default_factory=dict)
    uses: dict[str, tuple[list[str], bool]] = field(default_factory=dict)  # alias -> path, pub
    globs: list[list[str]] = field(default_factory=list)
    placed: dict[str, str] = field(default_factory=dict)  # `#[path]` module name -> its file


def find(root: Path, sources: Sequence[SourceFile]) -> list[FileUses]:
    libraries: dict[str, str] = {}  # library name -> its crate
    modules: dict[tuple[str, _Path], _Module] = {}
    for source in sources:
        tree = parse(_LANGUAGE, source.text)
        if tree is None:
            continue
        crate, path, library = _place(source, root)
        if library:
            libraries.setdefault(library, crate)
        module = _Module(source, tree, crate, path)
        modules.setdefault((crate, path), module)
    crates = _Crates(modules, libraries, {m.source.rel_path: key for key, m in modules.items()})
    for module in modules.values():
        crates.scan(module)
    # A type's own (inherent) methods first: `g.add_node(` calls StableGraph's own
    # `add_node`, not that of a trait it implements (`impl Build for StableGraph`).
    for inherent in (True, False):
        for module in modules.values():
            crates.attach_impls(module, inherent)
    return [FileUses(m.source.rel_path, m.source.text, crates.uses_in(m))
            for m in modules.values()]


def _place(source: SourceFile, root: Path) -> tuple[str, _Path, str | None]:
    """(crate, module path, the library's name when the file is in one)."""
    rel = PurePosixPath(source.rel_path)
    parts = rel.parts
    for index in range(len(parts) - 1, -1, -1):
        folder = PurePosixPath(*parts[:index]) if index else PurePosixPath(".")
        manifest = root / folder / "Cargo.toml"
        if not manifest.is_file():
            continue
        inside = parts[index:]
        if inside[0] != "src" or inside[:2] == ("src", "bin"):
            return source.rel_path, (), None  # a crate of its own: a test, example or binary
        module = [*inside[1:-1], rel.stem]
        if module[-1] in ("mod", "lib", "main"):
            module.pop()
        name = _PACKAGE_NAME.search(manifest.read_text(errors="replace"))
        library = name.group(1).replace("-", "_") if name else folder.name.replace("-", "_")
        return str(folder), tuple(module), library
    return source.rel_path, (), None


class _Crates:
    def __init__(self, modules: dict[tuple[str, _Path], _Module], libraries: dict[str, str],
                 files: dict[str, tuple[str, _Path]]) -> None:
        self.modules = modules
        self.libraries = libraries
        self.files = files  # a source's path -> its module's key
        # A struct's (path, line) -> its module and its named fields' types.
        self.fields: dict[tuple[str, int], tuple[_Module, dict[str, Node]]] = {}

    def scan(self, module: _Module) -> None:
        path = module.source.rel_path
        for item in _items(module.root):
            kind = _ITEMS.get(item.type)
            name = item.child_by_field_name("name")
            if kind is not None and name is not None:
                module.definitions.setdefault(text(name), Definition(
                    path, line(name), text(name), kind))
            body = item.child_by_field_name("body") if item.type == "struct_item" else None
            if name is not None and body is not None:
                self.fields[(path, line(name))] = (module, {
                    text(field_name): field_type for declared in body.named_children
                    if (field_name := declared.child_by_field_name("name")) is not None
                    and (field_type := declared.child_by_field_name("type")) is not None})
            written = rust_path_attribute(item) if item.type == "mod_item" else None
            if written is not None and name is not None:
                module.placed.setdefault(text(name), rust_path_file(path, written))
        for statement in _items(module.root):
            if statement.type != "use_declaration":
                continue
            public = any(c.type == "visibility_modifier" for c in statement.children)
            argument = statement.child_by_field_name("argument")
            if argument is not None:
                for alias, target in _use_paths(argument, []):
                    if alias == "*":
                        module.globs.append(target)
                    else:
                        module.uses.setdefault(alias, (target, public))

    def attach_impls(self, module: _Module, inherent: bool) -> None:
        """Each `impl`'s functions and constants become members of the type it names: of
        the type's own `impl`s when ``inherent``, else of trait `impl`s and traits."""
        path = module.source.rel_path
        for item in _items(module.root):
            if item.type not in ("impl_item", "trait_item"):
                continue
            if (item.type == "impl_item" and item.child_by_field_name("trait") is None) \
                    != inherent:
                continue
            named = item.child_by_field_name("type") if item.type == "impl_item" \
                else item.child_by_field_name("name")
            body = item.child_by_field_name("body")
            owner = self.type_of(named, module) if named is not None else None
            if owner is None or body is None:
                continue
            for member in body.named_children:
                name = member.child_by_field_name("name")
                if member.type in ("function_item", "const_item") and name is not None:
                    kind = "method" if member.type == "function_item" else "constant"
                    owner.members.setdefault(text(name), Definition(
                        path, line(name), f"{owner.name}.{text(name)}", kind))

    def type_of(self, node: Node, module: _Module) -> Definition | None:
        """The type a type expression names: `T`, `&T`, `&mut T`, `T<A>`, `a::T`."""
        while node.type in ("reference_type", "generic_type", "pointer_type"):
            inner = node.child_by_field_name("type")
            if inner is None:
                return None
            node = inner
        if node.type not in ("type_identifier", "scoped_type_identifier"):
            return None
        found = self.resolve(_segments(node), module)
        return found if isinstance(found, Definition) and found.kind == "class" else None

    # -- paths

    def resolve(self, segments: list[str], module: _Module,
                seen: frozenset[tuple[object, ...]] = frozenset()) -> _Binding | None:
        if not segments:
            return None
        first, rest = segments[0], segments[1:]
        start: _Binding | None
        if first == "crate":
            start = _ModuleRef((module.crate, ()))
        elif first == "self":
            start = _ModuleRef((module.crate, module.path))
        elif first == "super":
            start = _ModuleRef((module.crate, module.path[:-1]))
        elif first in self.libraries and first not in module.uses:
            start = _ModuleRef((self.libraries[first], ()))
        else:
            start = self.name_in((module.crate, module.path), first, seen)
        for segment in rest:
            if isinstance(start, _ModuleRef):
                start = self.name_in(start.key, segment, seen) if segment != "super" \
                    else _ModuleRef((start.key[0], start.key[1][:-1]))
            elif isinstance(start, Definition):
                start = start.members.get(segment)
            if start is None:
                return None
        return start

    def name_in(self, key: tuple[str, _Path], name: str,
                seen: frozenset[tuple[object, ...]]) -> _Binding | None:
        """What ``name`` is in the module ``key``: an item, a `use`, a child module, a glob's."""
        if (key, name) in seen:
            return None
        seen |= {(key, name)}
        module = self.modules.get(key)
        if module is not None:
            if name in module.definitions:
                return module.definitions[name]
            if name in module.uses:
                found = self.resolve(module.uses[name][0], module, seen)
                if found is not None:
                    return found
        child = (key[0], (*key[1], name))
        if child in self.modules:
            return _ModuleRef(child)
        # Placed by a `#[path]` where no file sits at its place (one at its place is a cfg
        # alternative's: `#[path = "hermit/mod.rs"] mod unix;` beside `mod unix;`).
        placed = self.files.get(module.placed.get(name, "")) if module is not None else None
        if placed is not None:
            return _ModuleRef(placed)
        for glob in module.globs if module is not None else []:
            base = self.resolve(glob, module, seen) if module is not None else None
            if isinstance(base, _ModuleRef):
                found = self.name_in(base.key, name, seen)
                if found is not None:
                    return found
        return None

    # -- uses

    def uses_in(self, module: _Module) -> list[Use]:
        found: list[Use] = []
        for item in module.root.children:
            if item.type in ("use_declaration", "mod_item") and not _is_inline_module(item):
                continue
            implemented = item.child_by_field_name("type") if item.type == "impl_item" else None
            owner = self.type_of(implemented, module) if implemented is not None else None
            typed: dict[str, Definition] = {"self": owner, **self._fields_of(owner)} \
                if owner is not None else {}
            for node in preorder(item):
                self._learn_type(node, module, typed)
                resolved = self._resolve(node, module, typed)
                if resolved is None:
                    continue
                target, name = resolved
                found_use = use_of(name, target, _called(node))
                if found_use is not None:
                    found.append(found_use)
        return found

    def _fields_of(self, owner: Definition) -> dict[str, Definition]:
        """`self.name` -> the type of each of ``owner``'s fields that names a type of the
        crates (not `Arc<T>` or `Vec<T>`: their methods are the standard library's)."""
        module, fields = self.fields.get((owner.path, owner.line), (None, {}))
        found = {}
        for name, written in fields.items():
            kind = self.type_of(written, module) if module is not None else None
            if kind is not None:
                found[f"self.{name}"] = kind
        return found

    def _resolve(self, node: Node, module: _Module, typed: dict[str, Definition]
                 ) -> tuple[Definition, Node] | None:
        parent = node.parent
        if node.type == "identifier":
            if parent is not None and (parent.type in ("scoped_identifier", "field_expression")
                                       or parent.child_by_field_name("pattern") == node):
                return None
            found = self.name_in((module.crate, module.path), text(node), frozenset())
        elif node.type == "scoped_identifier":
            if parent is not None and parent.type == "scoped_identifier":
                return None  # the whole path is resolved, not its head
            segments = _segments(node)
            if segments[0] == "Self" and "self" in typed and len(segments) == 2:
                found = typed["self"].members.get(segments[1])
            else:
                found = self.resolve(segments, module)
        elif node.type == "field_expression":
            value, member = node.child_by_field_name("value"), node.child_by_field_name("field")
            if value is None or member is None or text(value) not in typed:
                return None
            found = typed[text(value)].members.get(text(member))
        else:
            return None
        if not isinstance(found, Definition):
            return None
        name = node.child_by_field_name("name") or node.child_by_field_name("field") or node
        return found, name

    def _learn_type(self, node: Node, module: _Module, typed: dict[str, Definition]) -> None:
        if node.type not in ("let_declaration", "parameter"):
            return
        pattern = node.child_by_field_name("pattern")
        shown = node.child_by_field_name("type")
        if pattern is None or pattern.type != "identifier":
            return
        owner = self.type_of(shown, module) if shown is not None else None
        value = node.child_by_field_name("value")
        if owner is None and value is not None:
            owner = self._made(value, module)
        if owner is not None:
            typed[text(pattern)] = owner

    def _made(self, value: Node, module: _Module) -> Definition | None:
        """The type `T { .. }` or `T::new(..)` makes."""
        if value.type == "struct_expression":
            name = value.child_by_field_name("name")
            return self.type_of(name, module) if name is not None else None
        function = value.child_by_field_name("function") if value.type == "call_expression" \
            else None
        if function is None or function.type != "scoped_identifier":
            return None
        segments = _segments(function)
        if segments[-1] not in _CONSTRUCTORS:
            return None
        found = self.resolve(segments[:-1], module)
        return found if isinstance(found, Definition) and found.kind == "class" else None


def _items(root: Node) -> list[Node]:
    """The module's items: those of the file, not of its inline `mod { }` blocks."""
    return [c for c in root.named_children if c.type != "mod_item" or not _is_inline_module(c)]


def _is_inline_module(item: Node) -> bool:
    return item.type == "mod_item" and item.child_by_field_name("body") is not None


def _use_paths(node: Node, prefix: list[str]) -> list[tuple[str, list[str]]]:
    """(alias, path) of each name a `use` argument binds; alias "*" for a glob."""
    if node.type == "use_as_clause":
        path, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
        return [(text(alias), [*prefix, *_segments(path)])] if path and alias else []
    if node.type == "scoped_use_list":
        path, names = node.child_by_field_name("path"), node.child_by_field_name("list")
        base = [*prefix, *_segments(path)] if path is not None else prefix
        return _use_paths(names, base) if names is not None else []
    if node.type == "use_list":
        return [found for child in node.named_children for found in _use_paths(child, prefix)]
    if node.type == "use_wildcard":
        inner = node.named_children[0] if node.named_children else None
        return [("*", [*prefix, *(_segments(inner) if inner is not None else [])])]
    segments = [*prefix, *_segments(node)]
    if segments and segments[-1] == "self":
        segments.pop()
    return [(segments[-1], segments)] if segments else []


def _segments(node: Node | None) -> list[str]:
    """`a::b::C` as ["a", "b", "C"]; generic arguments dropped."""
    if node is None:
        return []
    if node.type in ("scoped_identifier", "scoped_type_identifier"):
        return [*_segments(node.child_by_field_name("path")),
                *_segments(node.child_by_field_name("name"))]
    if node.type == "generic_type":
        return _segments(node.child_by_field_name("type"))
    return [text(node)]


def _called(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type == "call_expression" and \
        parent.child_by_field_name("function") == node

