"""TypeScript and JavaScript cases: imported `f(`, `new C(`, `ns.f(`, `C.m(`, `x.m(`, constants.

Relative imports resolve as bundlers do (`./a` -> `a.ts`, `a/index.ts`; `./a.js` may
name `a.ts`). A bare specifier that is the `name` of a package.json in the repository
(the package importing itself, or a workspace sibling) resolves as Node does, through
its `exports` (patterns and conditions) or `main`-like fields, to the source file that
built the entry (`dist/esm/index.d.ts` -> `src/index.ts`); a `#` specifier resolves
through the `imports` of the package the importing file is in. Named, default and namespace
imports are followed through barrels
(`export * from`, `export { a as b } from`, `export * as ns from`). A variable's
class is known from `new C(...)` or a `: C` annotation. Declaration files (`.d.ts`)
are neither cursors nor answers. CommonJS is read too: `exports.f =` and
`module.exports.f =` export `f`, `module.exports = X` is what a whole-module `require`
binds, `require("./m").a` and `const { a } = require("./m")` import `a`, and a function
with `C.prototype.m = function` is a class; a `require` line is no cursor.
"""

from __future__ import annotations

import dataclasses
import json
import os
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from embedstore.evaluation.completion_cases.common import (
    Definition,
    FileUses,
    Use,
    choice,
    has,
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

_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")
# Folders a package's build writes its entry points to; the sources that built
# `dist/esm/x.js` are `src/x.ts` (or `x.ts`).
_BUILD_FOLDERS = frozenset({"dist", "build", "lib", "out", "esm", "esm5", "es2015", "cjs",
                            "mjs", "types", "modern", "legacy"})
# package.json fields naming the package's own entry when it has no `exports`.
_ENTRY_FIELDS = ("source", "module", "main", "types", "typings")
_FUNCTION_VALUES = frozenset({"arrow_function", "function_expression", "function",
                              "generator_function"})
_DEFINITION_KINDS = ("function_declaration", "generator_function_declaration",
                     "class_declaration", "abstract_class_declaration", "enum_declaration")
_VARIABLE_KINDS = ("lexical_declaration", "variable_declaration")
_FIELD_KINDS = ("public_field_definition", "field_definition")
# What `const m = require("./m")` imports: `module.exports` as a whole.
_REQUIRED = "module.exports"


def _definitions_query(language: str) -> str:
    """Top-level definitions, exported or not (`export` wraps them)."""
    definitions, variables = choice(language, _DEFINITION_KINDS), choice(language, _VARIABLE_KINDS)
    return f"""
[(program (_ {definitions} @definition)) (program {definitions} @definition)
 (program (_ {variables} @variables)) (program {variables} @variables)]
"""


def _members_query(language: str) -> str:
    fields = " ".join(
        f"({kind} [(property_identifier) @field (private_property_identifier) @field])"
        for kind in _FIELD_KINDS if has(language, kind)
    )
    enums = "(enum_body [(property_identifier) @field (enum_assignment name: (_) @field)])" \
        if has(language, "enum_body") else ""
    return f"(class_body [(method_definition name: (_) @method) {fields}])\n{enums}"


_IMPORTS = """
(import_statement (import_clause) @clause source: (string) @source)
"""
_EXPORTS = """
(export_statement source: (string) @source) @from
(export_statement (export_clause) @clause .) @local
(export_statement "default" declaration: (_) @default)
(export_statement "default" value: (identifier) @default_name)
"""


@dataclass(frozen=True)
class _Package:
    name: str
    folder: str  # its package.json's folder, as a repository path ("" at the root)
    exports: dict[str, object]  # "." / "./sub" / "./sub/*" -> its target as written
    entries: tuple[str, ...]  # what `main` and the like name, for a package without exports
    imports: dict[str, object]  # "#core" / "#core/*" -> its target as written

    def targets(self, subpath: str) -> list[str]:
        """The paths (package-relative) that importing ``subpath`` of it may load, in order."""
        if not self.exports:
            return [*self.entries, "index"] if subpath == "." else [subpath]
        return _matching(self.exports, subpath)


@dataclass(frozen=True)
class _ModuleRef:
    path: str


_Binding = Definition | _ModuleRef


@dataclass
class _Module:
    source: SourceFile
    root: Node
    definitions: dict[str, Definition] = field(default_factory=dict)
    exported: dict[str, str] = field(default_factory=dict)  # exported name -> local name
    reexports: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (path, name)
    namespaces: dict[str, str] = field(default_factory=dict)  # `export * as ns`: name -> path
    stars: list[str] = field(default_factory=list)  # `export * from`: paths
    imports: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # None: namespace
    # `var x = require("./x")` statements: imports, so never a case's line.
    requiring: set[int] = field(default_factory=set)  # their start bytes


def find(root: Path, sources: Sequence[SourceFile]) -> list[FileUses]:
    files = [s for s in sources if s.rel_path.endswith(_EXTENSIONS)
             and not s.rel_path.endswith(_DECLARATIONS)]
    modules: dict[str, _Module] = {}
    for source in files:
        tree = parse(source.language, source.text)
        if tree is not None:
            modules[source.rel_path] = _Module(source, tree)
    repository = _Repository(modules, _packages(root))
    for module in modules.values():
        repository.scan(module)
    return [FileUses(m.source.rel_path, m.source.text, repository.uses(m))
            for m in modules.values()]


class _Repository:
    def __init__(self, modules: dict[str, _Module], packages: list[_Package]) -> None:
        self.modules = modules
        # Longest name first: `rxjs/operators` is its own package, not a subpath of `rxjs`.
        self.packages = sorted(packages, key=lambda p: -len(p.name))

    # -- what each file defines, imports and exports

    def scan(self, module: _Module) -> None:
        path, language = module.source.rel_path, module.source.language
        for match in matches(language, _definitions_query(language), module.root):
            for node in match.get("definition", []):
                self._define(module, node, _kind_of(node))
            for node in match.get("variables", []):
                for declarator in node.named_children:
                    value = declarator.child_by_field_name("value")
                    kind = "function" if value is not None and value.type in _FUNCTION_VALUES \
                        else "constant"
                    self._define(module, declarator, kind)
        for match in matches(language, _IMPORTS, module.root):
            target = self.resolve(path, _unquote(match["source"][0]))
            if target is not None:
                _bind_imports(module, match["clause"][0], target)
        for match in matches(language, _EXPORTS, module.root):
            self._export(module, match)
        for statement in module.root.named_children:
            if statement.type == "expression_statement":
                self._commonjs_export(module, statement)
            elif statement.type in _VARIABLE_KINDS:
                for declarator in statement.named_children:
                    if self._require(module, declarator):
                        module.requiring.add(statement.start_byte)

    # -- CommonJS: `exports.f = ...`, `module.exports = ...`, `C.prototype.m = ...`, require

    def _commonjs_export(self, module: _Module, statement: Node) -> None:
        assignment = statement.named_children[0] if statement.named_child_count else None
        targets: list[str] = []
        while assignment is not None and assignment.type == "assignment_expression":
            left = assignment.child_by_field_name("left")
            targets.append(text(left) if left is not None else "")
            assignment = assignment.child_by_field_name("right")
        value = assignment
        if value is None:
            return
        for target in targets:
            self._assigned(module, target.replace(" ", "").split("."), value)

    def _assigned(self, module: _Module, written: list[str], value: Node) -> None:
        path = module.source.rel_path
        function = value.type in _FUNCTION_VALUES
        if written in (["module", "exports"], ["exports"]):
            named = value.child_by_field_name("name") if function or value.type == "class" \
                else None
            if value.type == "identifier":
                module.exported["default"] = text(value)
            elif named is not None:
                name = text(named)
                module.definitions.setdefault(
                    name, Definition(path, line(named), name, "function" if function else "class"))
                module.exported["default"] = name
            elif value.type == "object":
                for entry in value.named_children:
                    if entry.type == "shorthand_property_identifier":
                        module.exported[text(entry)] = text(entry)
                    elif entry.type == "pair" and (key := entry.child_by_field_name("key")) \
                            and (local := entry.child_by_field_name("value")) \
                            and local.type == "identifier":
                        module.exported[text(key)] = text(local)
            return
        if written[:-1] in (["module", "exports"], ["exports"]):
            name = written[-1]
            if value.type == "identifier":
                module.exported[name] = text(value)
                return
            module.definitions[name] = Definition(
                path, line(value.parent or value), name, "function" if function else "constant")
            module.exported[name] = name
        elif len(written) == 3 and written[1] == "prototype" and function:
            owner = module.definitions.get(written[0])
            if owner is not None and owner.path == path and owner.kind in ("function", "class"):
                # The members dict is shared, so methods found before stay.
                cls = dataclasses.replace(owner, kind="class")
                cls.members.setdefault(written[2], Definition(
                    path, line(value), f"{written[0]}.{written[2]}", "method"))
                module.definitions[written[0]] = cls

    def _require(self, module: _Module, declarator: Node) -> bool:
        """`const m = require("./m")`, `const {a, b: c} = require("./m")`, `const a =
        require("./m").a`; whether it is one (of a file of the repository or not)."""
        name = declarator.child_by_field_name("name")
        value = declarator.child_by_field_name("value")
        member = None
        if value is not None and value.type == "member_expression":
            member = value.child_by_field_name("property")
            value = value.child_by_field_name("object")
        if name is None or value is None or value.type != "call_expression":
            return False
        function, arguments = value.child_by_field_name("function"), \
            value.child_by_field_name("arguments")
        if function is None or text(function) != "require" or arguments is None \
                or arguments.named_child_count != 1 or arguments.named_children[0].type != "string":
            return False
        target = self.resolve(module.source.rel_path, _unquote(arguments.named_children[0]))
        if target is None:
            return True
        if member is not None:
            if name.type == "identifier":
                module.imports[text(name)] = (target, text(member))
        elif name.type == "identifier":
            module.imports[text(name)] = (target, _REQUIRED)
        elif name.type == "object_pattern":
            for part in name.named_children:
                if part.type == "shorthand_property_identifier_pattern":
                    module.imports[text(part)] = (target, text(part))
                elif part.type == "pair_pattern" and (key := part.child_by_field_name("key")) \
                        and (local := part.child_by_field_name("value")) \
                        and local.type == "identifier":
                    module.imports[text(local)] = (target, text(key))
        return True

    def _define(self, module: _Module, node: Node, kind: str) -> None:
        name_node = node.child_by_field_name("name")
        if name_node is None or name_node.type not in ("identifier", "type_identifier"):
            return  # a destructuring pattern
        name, path = text(name_node), module.source.rel_path
        definition = Definition(path, line(name_node), name, kind)
        if kind == "class":
            body = node.child_by_field_name("body")
            language = module.source.language
            members = matches(language, _members_query(language), body) if body else []
            for member in members:
                member_kind, nodes = next(iter(member.items()))
                own = text(nodes[0])
                definition.members.setdefault(own, Definition(
                    path, line(nodes[0]), f"{name}.{own}",
                    "method" if member_kind == "method" else "constant"))
        module.definitions.setdefault(name, definition)
        parent = node.parent
        exported = (parent is not None and parent.type == "export_statement") or (
            parent is not None and parent.type in ("lexical_declaration", "variable_declaration")
            and parent.parent is not None and parent.parent.type == "export_statement")
        if exported:
            module.exported[name] = name

    def _export(self, module: _Module, match: dict[str, list[Node]]) -> None:
        if "default" in match:
            named = match["default"][0].child_by_field_name("name")
            if named is not None:
                module.exported["default"] = text(named)
            return
        if "default_name" in match:
            module.exported["default"] = text(match["default_name"][0])
            return
        statement = (match.get("from") or match["local"])[0]
        clause = next((c for c in statement.named_children if c.type == "export_clause"), None)
        if "from" in match:
            target = self.resolve(module.source.rel_path, _unquote(match["source"][0]))
            if target is None:
                return
            space = next((c for c in statement.named_children if c.type == "namespace_export"),
                         None)
            if space is not None:
                module.namespaces[text(space.named_children[-1])] = target
            elif clause is None:
                module.stars.append(target)
            else:
                for name, alias in _specifiers(clause):
                    module.reexports[alias] = (target, name)
        elif clause is not None:
            for name, alias in _specifiers(clause):
                imported = module.imports.get(name)
                if imported is not None and imported[1] is not None:
                    module.reexports[alias] = (imported[0], imported[1])
                else:
                    module.exported[alias] = name

    def resolve(self, importing: str, specifier: str) -> str | None:
        """The file of the repository a specifier names: relative, `#` (its package's
        `imports`), or a package of it."""
        if specifier.startswith("."):
            return self._file(posixpath.join(posixpath.dirname(importing), specifier))
        if specifier.startswith("#"):
            # The package a file is in: the deepest package.json folder above it.
            owner = max((p for p in self.packages if p.folder == "" or importing.startswith(
                p.folder + "/")), key=lambda p: len(p.folder), default=None)
            return self._in_package(owner, _matching(owner.imports, specifier)) \
                if owner is not None else None
        for package in self.packages:
            if package.name and (specifier == package.name
                                 or specifier.startswith(package.name + "/")):
                return self._in_package(
                    package, package.targets("." + specifier[len(package.name):]))
        return None

    def _in_package(self, package: _Package, targets: list[str]) -> str | None:
        """The first of ``targets`` (paths in ``package``) that is a file, or was built from one."""
        for target in targets:
            found = self._file(posixpath.join(package.folder, target)) \
                or self._source_of(package.folder, target)
            if found is not None:
                return found
        return None

    def _file(self, path: str) -> str | None:
        """The module ``path`` names as a bundler finds it (`a` -> `a.ts`, `a/index.ts`)."""
        base = posixpath.normpath(path)
        for declaration in _DECLARATIONS:
            if base.endswith(declaration):
                base = base[:-len(declaration)]
        stem, extension = posixpath.splitext(base)
        candidates = [base]
        if extension in (".js", ".jsx", ".mjs", ".cjs"):  # ESM TypeScript names its output
            candidates += [stem + e for e in _EXTENSIONS]
        candidates += [base + e for e in _EXTENSIONS]
        candidates += [f"{base}/index{e}" for e in _EXTENSIONS]
        return next((c for c in candidates if c in self.modules), None)

    def _source_of(self, folder: str, built: str) -> str | None:
        """The source file a package's build output ``built`` was made from."""
        parts = posixpath.normpath(built).split("/")
        while len(parts) > 1 and parts[0] in _BUILD_FOLDERS:
            parts = parts[1:]
        rest = "/".join(parts)
        return self._file(posixpath.join(folder, "src", rest)) \
            or self._file(posixpath.join(folder, rest))

    def member(self, path: str, name: str, seen: frozenset[tuple[str, str]] = frozenset()
               ) -> _Binding | None:
        """What ``import { name } from path`` binds, barrels followed to the definition."""
        module = self.modules.get(path)
        if module is None or (path, name) in seen:
            return None
        if name == _REQUIRED:  # `module.exports = X` if the module says so, else its exports
            return self.member(path, "default", seen) if "default" in module.exported \
                else _ModuleRef(path)
        seen |= {(path, name)}
        if name in module.exported:
            local = module.exported[name]
            if local in module.definitions:
                return module.definitions[local]
            imported = module.imports.get(local)
            if imported is not None:
                origin, origin_name = imported
                return _ModuleRef(origin) if origin_name is None \
                    else self.member(origin, origin_name, seen)
        if name in module.reexports:
            return self.member(*module.reexports[name], seen)
        if name in module.namespaces:
            return _ModuleRef(module.namespaces[name])
        for star in module.stars:
            found = self.member(star, name, seen)
            if found is not None:
                return found
        return None

    # -- uses

    def uses(self, module: _Module) -> list[Use]:
        bound: dict[str, _Binding] = {}
        for alias, (path, name) in module.imports.items():
            found = _ModuleRef(path) if name is None else self.member(path, name)
            if found is not None:
                bound[alias] = found
        found_uses: list[Use] = []
        for statement in module.root.children:
            if statement.start_byte in module.requiring:
                continue
            typed: dict[str, Definition] = {}
            for node in preorder(statement):
                self._learn_type(node, bound, typed)
                resolved = self._resolve(node, bound, typed)
                if resolved is None:
                    continue
                target, written = resolved
                found_use = use_of(written, target, _called(node))
                if found_use is not None:
                    found_uses.append(found_use)
        return found_uses

    def _resolve(self, node: Node, bound: dict[str, _Binding], typed: dict[str, Definition]
                 ) -> tuple[Definition, Node] | None:
        if node.type == "identifier":
            parent = node.parent
            if parent is not None and parent.type in ("member_expression", "import_specifier",
                                                      "namespace_import", "import_clause"):
                return None
            found = bound.get(text(node))
            return (found, node) if isinstance(found, Definition) else None
        if node.type != "member_expression":
            return None
        owner, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        if owner is None or prop is None or owner.type != "identifier":
            return None
        # A variable of a known class reads its members as the class itself does.
        base = typed.get(text(owner)) or bound.get(text(owner))
        if isinstance(base, _ModuleRef):
            found = self.member(base.path, text(prop))
            return (found, prop) if isinstance(found, Definition) else None
        if isinstance(base, Definition) and base.kind == "class":
            member = base.members.get(text(prop))
            return (member, prop) if member is not None else None
        return None

    def _learn_type(self, node: Node, bound: dict[str, _Binding],
                    typed: dict[str, Definition]) -> None:
        """``typed`` learns the class of a variable from `new C(...)` or `x: C`."""
        if node.type == "variable_declarator":
            name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            shown = node.child_by_field_name("type")
            made = value.child_by_field_name("constructor") \
                if value is not None and value.type == "new_expression" else None
        elif node.type in ("required_parameter", "optional_parameter", "public_field_definition"):
            name = node.child_by_field_name("pattern") or node.child_by_field_name("name")
            shown, made = node.child_by_field_name("type"), None
        else:
            return
        if shown is not None and shown.named_child_count:
            made = shown.named_children[0]
        if name is None or made is None or made.type not in ("identifier", "type_identifier"):
            return
        cls = bound.get(text(made))
        if isinstance(cls, Definition) and cls.kind == "class":
            typed[text(name)] = cls


def _packages(root: Path) -> list[_Package]:
    """The packages whose package.json lies in the repository (outside node_modules)."""
    found = []
    for manifest in _package_jsons(root):
        relative = manifest.relative_to(root)
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        name, exports, imports = data.get("name"), data.get("exports"), data.get("imports")
        if exports is not None and not (isinstance(exports, dict)
                                        and all(str(k).startswith(".") for k in exports)):
            exports = {".": exports}  # conditions or one path: the package itself
        entries = tuple(data[f] for f in _ENTRY_FIELDS if isinstance(data.get(f), str))
        found.append(_Package(name if isinstance(name, str) else "",
                              posixpath.dirname(relative.as_posix()), exports or {}, entries,
                              imports if isinstance(imports, dict) else {}))
    return found


def _package_jsons(root: Path) -> list[Path]:
    """The repository's package.json files, in path order; installed packages
    (node_modules) and hidden folders are not walked at all."""
    found = []
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders
                               if d != "node_modules" and not d.startswith("."))
        if "package.json" in files:
            found.append(Path(folder) / "package.json")
    return sorted(found)


def _matching(table: dict[str, object], key: str) -> list[str]:
    """The paths ``table`` (`exports`, `imports`) maps ``key`` to: its own entry, or the
    first pattern whose `*` stands for part of it."""
    if key in table:
        return _strings(table[key])
    for pattern, target in table.items():
        prefix, star, suffix = pattern.partition("*")
        if star and key.startswith(prefix) and key.endswith(suffix) \
                and len(key) >= len(prefix) + len(suffix):
            return [t.replace("*", key[len(prefix):len(key) - len(suffix)])
                    for t in _strings(target)]
    return []


def _strings(target: object) -> list[str]:
    """The paths an `exports` target names, its conditions in their written order
    (`null` excludes the subpath: nothing)."""
    if isinstance(target, str):
        return [target]
    if isinstance(target, list):
        return [path for item in target for path in _strings(item)]
    if isinstance(target, dict):
        return [path for item in target.values() for path in _strings(item)]
    return []


def _kind_of(node: Node) -> str:
    return "function" if "function" in node.type else "class"


def _bind_imports(module: _Module, clause: Node, target: str) -> None:
    for part in clause.named_children:
        if part.type == "identifier":
            module.imports[text(part)] = (target, "default")
        elif part.type == "namespace_import":
            module.imports[text(part.named_children[-1])] = (target, None)
        elif part.type == "named_imports":
            for name, alias in _specifiers(part):
                module.imports[alias] = (target, name)


def _specifiers(clause: Node) -> list[tuple[str, str]]:
    """(name, alias) of each `name as alias` in `{ ... }`."""
    found = []
    for spec in clause.named_children:
        name, alias = spec.child_by_field_name("name"), spec.child_by_field_name("alias")
        if name is not None:
            found.append((text(name), text(alias or name)))
    return found


def _called(node: Node) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "call_expression":
        return parent.child_by_field_name("function") == node
    return parent.type == "new_expression" and parent.child_by_field_name("constructor") == node


def _unquote(node: Node) -> str:
    return text(node).strip("'\"`")
