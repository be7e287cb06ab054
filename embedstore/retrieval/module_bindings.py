"""What the code's imports bind, and where a type's members are written.

An import resolves to files (``chunking.symbols.resolve_import``, with the collection's
go.mod, tsconfig.json and Cargo.toml files); a name imported from them is followed through
re-exports (`from .core import X`, `export * from "./x"`, `pub use self::bounded::channel`)
to its definition, or else to the module files it names. A glob import also binds what its
module imports, and a language may reach modules with no import at all (Rust's `crate::`,
`super::`). A Go type's methods lie in any file of its package, a Rust type's in any file
of its crate.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable
from pathlib import PurePath
from typing import Literal

from embedstore.chunking.symbols import (
    ImportRef,
    glob_binds_imports,
    implicit_imports,
    import_may_bind_module,
    import_passes_on,
    resolve_import,
)
from embedstore.retrieval.collection_view import (
    all_paths,
    cached,
    definitions_in,
    file_lines,
    folders_of,
    imports_of,
    project_of,
)
from embedstore.store import symbol_table
from embedstore.store.collection import Collection
from embedstore.store.symbol_table import DefinitionRow

# Follow `from .core import X` in a package's __init__ at most this deep.
REEXPORT_DEPTH = 3
# Files that stand for their folder's module.
_FOLDER_MODULES = ("__init__.", "mod.rs")
# How the code came by a name (see bindings): its own import, a glob import's module's
# import, or a path the language reaches with no import.
How = Literal["import", "glob", "path"]


def bindings(
    collection: Collection, imports: list[ImportRef], importer: str, language: str,
    paths: frozenset[str],
) -> list[tuple[ImportRef, list[str], How]]:
    """What the code's imports bind: (import, the files it resolves to, how).

    A glob import also binds what its module's own imports bind: `use super::*` in syn's
    `expr.rs` binds the `mod verbatim;` of `lib.rs`, so `verbatim::between(` is in scope,
    as Python's `from m import *` takes the names m imported. Last come the modules a path
    reaches with no import: Rust's `super::check_json(` in chrono's tests, `crate::` and
    `syn::parse_str(` from syn's tests/ (+5.7 points at 2,048 tokens on train-multi's Rust).
    """
    found: list[tuple[ImportRef, list[str], How]] = []
    for ref in imports:
        modules = _resolve(collection, ref, importer, language, paths)
        found.append((ref, modules, "import"))
        if ref.name != "*" or not glob_binds_imports(language):
            continue
        for module in modules:
            passed = [ImportRef(*row) for row in imports_of(collection, module)
                      if row.name != "*"]  # its globs: modules_passed_on follows them
            found.extend((onward, _resolve(collection, onward, module, language, paths), "glob")
                         for onward in passed)
    found.extend((ref, _resolve(collection, ref, importer, language, paths), "path")
                 for ref in implicit_imports(language, project_of(collection)))
    return found


def _resolve(
    collection: Collection, ref: ImportRef, importer: str, language: str, paths: frozenset[str]
) -> list[str]:
    """The files ``ref`` imports, as the collection's go.mod and tsconfig.json files and
    the indexed folder's name (a package indexed from inside) have it."""
    return resolve_import(ref, importer, language, paths, project_of(collection))


def modules_passed_on(
    collection: Collection, modules: list[str], language: str, paths: frozenset[str]
) -> list[str]:
    """``modules`` and those they pass on whole (`export * from "./x"` in a barrel, Python's
    `from .core import *` in a package, Rust's `pub use errors::*`): what a namespace import
    reaches. Not what a module's glob only takes in (a test module's `use super::*`)."""
    found = list(modules)
    todo = list(modules)
    for _ in range(REEXPORT_DEPTH):
        onward = [t for module in todo for row in imports_of(collection, module)
                  if row.name == "*" and import_passes_on(
                      language, file_lines(collection, module).get(row.line, "").strip())
                  for t in _resolve(collection, ImportRef(*row), module, language, paths)]
        todo = [t for t in dict.fromkeys(onward) if t not in found]
        found.extend(todo)
    return found


def follow(
    collection: Collection, name: str, targets: list[str], language: str, paths: frozenset[str],
) -> tuple[list[DefinitionRow], list[str]]:
    """What ``name`` imported from ``targets`` is: its top-level definitions (or members
    of the class a file is named for: Java's `import static a.b.Bridge.SCHEME`), or else
    the files of the module it names, following re-exports (``from . import reduction``
    in a file the code imports ``reduction`` from)."""
    for _ in range(REEXPORT_DEPTH):
        # As Python has it: `from pkg import x` is what pkg/__init__ defines as x, else the
        # submodule x (whose own definitions may include an x, as ElementTree's does).
        modules = ([t for t in targets if module_stem(t) == name]
                   if import_may_bind_module(language) else [])
        owners = [t for t in targets if t not in modules]
        rows = [r for r in definitions_in(collection, owners)
                if r.name == name and r.qualname in (name, f"{module_stem(r.path)}.{name}")]
        if rows:
            return rows + _passed_on_by_glob(collection, name, owners, language, paths), []
        if modules:  # with what they pass on whole: `pub use errors::*` makes `c::ERROR_X`
            return [], modules_passed_on(collection, modules, language, paths)
        # `from .core import Client` in pkg/__init__.py: look where that file got it from.
        onward: list[str] = []
        # A barrel's `export * as PubSub from "./PubSub"` passes on a module under a name.
        spaces = [found for target in targets for row in imports_of(collection, target)
                  if row.alias == name and row.name is None
                  for found in _resolve(collection, ImportRef(*row), target, language, paths)]
        if spaces:
            return [], modules_passed_on(collection, spaces, language, paths)
        # A barrel's `export * from "./x"` passes on x's names under their own.
        for target in targets:
            for row in imports_of(collection, target):
                if (row.alias == name and row.name not in (None, "*")) or row.name == "*":
                    ref = ImportRef(*row)
                    onward.extend(_resolve(collection, ref, target, language, paths))
                    name = ref.name if ref.name not in (None, "*") else name
        if not onward:
            return [], []
        targets = onward
    return [], []


def passed_on_by_name(
    collection: Collection, modules: list[str], language: str, paths: frozenset[str],
) -> list[DefinitionRow]:
    """The definitions ``modules`` import by name and pass on as their own (tokio's
    `pub use self::bounded::{channel, Sender}` in sync/mpsc/mod.rs, so that `mpsc::channel(`
    is bounded.rs's), under the name they have there."""
    found: list[DefinitionRow] = []
    for module in modules:
        text = file_lines(collection, module)
        for row in imports_of(collection, module):
            if row.name in (None, "*") or row.alias != row.name or not import_passes_on(
                    language, text.get(row.line, "").strip()):
                continue
            targets = _resolve(collection, ImportRef(*row), module, language, paths)
            found += follow(collection, row.name, targets, language, paths)[0]
    return found


def _passed_on_by_glob(
    collection: Collection, name: str, files: list[str], language: str, paths: frozenset[str],
) -> list[DefinitionRow]:
    """The definitions of ``name`` in the modules ``files`` pass on whole: a file may define
    a name and re-export a module's as well, one of them compiled in (regex's `literal`:
    `#[cfg(feature)] pub use self::imp::*;` and, failing the feature, an inline `mod imp`
    with a stub `LiteralSearcher`), so either may be the one the code calls."""
    found: list[DefinitionRow] = []
    for file in files:
        for row in imports_of(collection, file):
            if row.name == "*":
                targets = _resolve(collection, ImportRef(*row), file, language, paths)
                found += [r for r in definitions_in(collection, targets)
                          if r.name == name and r.qualname == name]
    return found


def module_stem(path: str) -> str:
    """The module name a file stands for: `a/b.py`, `a/b/__init__.py` and `a/b/mod.rs` are
    all `b`."""
    file = PurePath(path)
    return file.parent.name if file.name.startswith(_FOLDER_MODULES) else file.stem


# Kinds whose members come with them: classes, and structs, enums, traits and Go types
# (their methods are in impl blocks and receivers, stored under the type's name).
HAS_MEMBERS = frozenset({"class", "type"})


def _package_files(collection: Collection, row: DefinitionRow) -> list[str]:
    """A Go type's methods: any file of its package (its folder)."""
    return folders_of(collection).get(posixpath.dirname(row.path), [row.path])


def _crate_files(collection: Collection, row: DefinitionRow) -> list[str]:
    """A Rust type's methods: its `impl` blocks, in any file of its crate, unless the crate
    has another type of its name (whose `impl Name` could be either's)."""
    crate = max((c.source for c in project_of(collection).rust_crates
                 if row.path.startswith(f"{c.source}/") or not c.source), key=len, default=None)
    if crate is None:
        return [row.path]
    files = _crate_sources(collection, crate)
    namesakes = [r for r in symbol_table.definitions_named(collection.conn, [row.name])
                 if r.kind in HAS_MEMBERS and r.path in files]
    return sorted(files) if len(namesakes) == 1 else [row.path]


def _crate_sources(collection: Collection, folder: str) -> frozenset[str]:
    def find() -> frozenset[str]:
        inside = f"{folder}/" if folder else ""
        return frozenset(p for p in all_paths(collection)
                         if p.startswith(inside) and p.endswith(".rs"))

    got = cached(collection, f"crate:{folder}", find)
    assert isinstance(got, frozenset)
    return got


# Where a type's members may be defined, by language (elsewhere: its own file).
_MEMBER_FILES: dict[str, Callable[[Collection, DefinitionRow], list[str]]] = {
    "go": _package_files,
    "rust": _crate_files,
}


def member_files(collection: Collection, row: DefinitionRow) -> list[str]:
    where = _MEMBER_FILES.get(row.language)
    return where(collection, row) if where is not None else [row.path]
