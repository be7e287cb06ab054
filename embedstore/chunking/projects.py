"""What a collection's project files say about where its imports lead.

Go's ``go.mod`` names the module whose packages the module's own imports
spell out (``github.com/spf13/cobra/doc`` is the folder ``doc`` beside it) and
may ``replace`` a module by a local folder. TypeScript's ``tsconfig.json`` (and
``jsconfig.json``) maps bare specifiers to folders with ``compilerOptions``
``baseUrl`` and ``paths``, its own or those of the configs it ``extends`` (a
monorepo's ``tsconfig.base.json``); a ``package.json`` names the package that the other
packages of a monorepo import by name (``import { QueryClient } from '@acme/core'``,
which npm, pnpm and yarn workspaces link to the package's folder), and its ``imports``
map the specifiers its own files write with a ``#`` (``#core/utils``). Rust's
``Cargo.toml`` names the crate that its tests, examples and sibling crates `use` by
name (``use nom::branch::alt``).
Each file is read by the reader its name is filed under in PROJECT_FILES;
``symbols.resolve_import`` uses what they found.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar


@dataclass(frozen=True)
class GoModule:
    folder: str  # where go.mod is, "" at the collection's root
    path: str  # its `module` line: "github.com/spf13/cobra"
    # `replace github.com/x/y => ./y`: module path -> the local folder it is read from.
    replaced: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TsConfig:
    folder: str  # where tsconfig.json is
    base: str | None  # compilerOptions.baseUrl, as a collection path ("" for the root)
    # compilerOptions.paths, its targets as collection paths: "@app/*" -> ["src/app/*"].
    paths: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class JsPackage:
    name: str  # as imports spell it: "@acme/core"
    folder: str  # where its package.json is
    # What its package.json says each entry point is ("." for the package itself, "./utils"
    # for a subpath), as collection paths, in the order to try: `exports` first, then
    # `source`, `module`, `main`, `types`.
    entries: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Its `imports` (Node's subpath imports): "#core/*" -> ("src/core/*.ts",), conditions
    # in their order, as collection paths.
    imports: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class RustCrate:
    name: str  # as `use` spells it: Cargo's `regex-syntax` is `regex_syntax`
    source: str  # the folder of its library's root file (lib.rs): "src", "regex-syntax/src"


@dataclass(frozen=True)
class Project:
    """A collection's project files, read; the empty project resolves as before."""

    root_name: str = ""  # the indexed folder's own name: `pip/_internal` gives "_internal"
    go_modules: tuple[GoModule, ...] = ()
    ts_configs: tuple[TsConfig, ...] = ()
    js_packages: tuple[JsPackage, ...] = ()
    rust_crates: tuple[RustCrate, ...] = ()
    # Rust modules a `#[path]` attribute places: where file locations would put them
    # (`src/sys/os`) -> their files (`src/sys/unix/os.rs`); from the sources, not a project file.
    rust_modules: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def ts_config_for(self, importing: str) -> TsConfig | None:
        """The tsconfig nearest above the file ``importing``."""
        return _nearest(self.ts_configs, importing)

    def js_package_for(self, importing: str) -> JsPackage | None:
        """The package.json nearest above the file ``importing``: the package it is part of."""
        return _nearest(self.js_packages, importing)


_Config = TypeVar("_Config", TsConfig, JsPackage)


def _nearest(found: tuple[_Config, ...], importing: str) -> _Config | None:
    """Of project files, the one whose folder holds ``importing`` most closely."""
    folder = posixpath.dirname(importing)
    best: _Config | None = None
    for config in found:
        inside = not config.folder or folder == config.folder \
            or folder.startswith(config.folder + "/")
        if inside and (best is None or len(config.folder) > len(best.folder)):
            best = config
    return best


def read_project(
    root_name: str, files: Mapping[str, str], read: Callable[[str], str | None] | None = None
) -> Project:
    """The project ``files`` (path -> text) describe; unreadable files count for nothing.

    ``read`` gives the text of any other file of the collection (None if it has none),
    for the configs a tsconfig ``extends``."""
    go: list[GoModule] = []
    ts: dict[str, _TsFile] = {}  # by path, for the configs that extend them
    js: list[JsPackage] = []
    rust: list[RustCrate] = []
    for path, text in sorted(files.items()):
        reader = PROJECT_FILES.get(posixpath.basename(path))
        found = reader(posixpath.dirname(path), text) if reader is not None else None
        if isinstance(found, GoModule):
            go.append(found)
        elif isinstance(found, _TsFile):
            ts[path] = found
        elif isinstance(found, JsPackage):
            js.append(found)
        elif isinstance(found, RustCrate):
            rust.append(found)
    known = _TsFiles(dict(ts), read, js)
    configs = [_resolved(file, known) for file in ts.values()]
    return Project(root_name, tuple(go), tuple(c for c in configs if c is not None),
                   tuple(js), tuple(rust))


# --- go.mod --------------------------------------------------------------------------------

_GO_MODULE = re.compile(r"^[ \t]*module[ \t]+\"?([^\s\"]+)", re.MULTILINE)
# One replacement: `old [version] => new [version]`, alone on a `replace` line or in a block.
_GO_REPLACE = re.compile(r"\s*(?:replace\s+)?(\S+)(?:\s+\S+)?\s+=>\s+(\S+)")


def read_go_mod(folder: str, text: str) -> GoModule | None:
    module = _GO_MODULE.search(text)
    if module is None:
        return None
    replaced: dict[str, str] = {}
    for line in _go_replace_lines(text):
        match = _GO_REPLACE.match(line)
        # Only a local folder (`./x`, `../x`) is in the collection; a module elsewhere is not.
        if match and match.group(2).startswith(("./", "../")):
            target = posixpath.normpath(posixpath.join(folder, match.group(2)))
            replaced[match.group(1)] = "" if target == "." else target
    return GoModule(folder, module.group(1), replaced)


def _go_replace_lines(text: str) -> list[str]:
    """The lines of `replace` directives, single or grouped in `replace ( ... )`."""
    lines: list[str] = []
    block = False
    for line in text.split("\n"):
        words = line.split("//")[0].split()
        if block:
            block = words != [")"]
            if block:
                lines.append(line)
        elif words[:1] == ["replace"]:
            block = words[1:] == ["("]
            if not block:
                lines.append(line)
    return lines


# --- tsconfig.json ---------------------------------------------------------------------------

_TRAILING_COMMA = re.compile(r",(\s*[}\]])")


@dataclass(frozen=True)
class _TsFile:
    """One tsconfig's own settings, before what it extends is known."""

    folder: str
    base: str | None  # baseUrl, against its own folder
    paths: Mapping[str, tuple[str, ...]] | None  # as written: where they lead needs baseUrl
    extends: tuple[str, ...]  # as written: "../tsconfig.base.json", "@acme/tsconfig/base"


@dataclass
class _TsFiles:
    """What following `extends` reads: the configs read so far by path, the reader of the
    others, and the collection's packages (a config may extend one's file)."""

    known: dict[str, _TsFile | None]
    read: Callable[[str], str | None] | None
    packages: list[JsPackage]

    def get(self, path: str) -> _TsFile | None:
        if path not in self.known:
            text = self.read(path) if self.read is not None else None
            self.known[path] = _read_ts_file(posixpath.dirname(path), text) \
                if text is not None else None
        return self.known[path]


# How many `extends` deep a config is followed: a cycle stops there too.
_MAX_EXTENDS = 8


def read_tsconfig(folder: str, text: str) -> TsConfig | None:
    """A tsconfig on its own (what it extends aside); None if it maps nothing."""
    file = _read_ts_file(folder, text)
    return _resolved(file, _TsFiles({}, None, [])) if file is not None else None


def _read_ts_file(folder: str, text: str) -> _TsFile | None:
    try:
        data = json.loads(_TRAILING_COMMA.sub(r"\1", _without_comments(text)))
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    extends = data.get("extends")  # one config, or a list of them (TypeScript 5)
    bases = tuple(e for e in (extends if isinstance(extends, list) else [extends])
                  if isinstance(e, str))
    options = data.get("compilerOptions")
    options = options if isinstance(options, dict) else {}
    base_url, paths = options.get("baseUrl"), options.get("paths")
    return _TsFile(
        folder,
        _collection_path(folder, base_url) if isinstance(base_url, str) else None,
        {pattern: tuple(t for t in targets if isinstance(t, str))
         for pattern, targets in paths.items() if isinstance(targets, list)}
        if isinstance(paths, dict) else None,
        bases,
    )


def _resolved(file: _TsFile, files: _TsFiles) -> TsConfig | None:
    """What ``file`` maps with what it inherits; None if it maps nothing."""
    base, paths, paths_folder = _inherited(file, files, 0)
    if base is None and not paths:
        return None
    # `paths` lead from baseUrl, or without one from the folder of the config that set them.
    start = base if base is not None else paths_folder
    return TsConfig(file.folder, base, {
        pattern: tuple(_collection_path(start, t) for t in targets)
        for pattern, targets in (paths or {}).items()})


def _inherited(
    file: _TsFile, files: _TsFiles, depth: int
) -> tuple[str | None, Mapping[str, tuple[str, ...]] | None, str]:
    """(baseUrl, paths as written, the folder of the config that wrote them): each from the
    nearest config of the `extends` chain that sets it; of a list, a later one wins."""
    base, paths, paths_folder = file.base, file.paths, file.folder
    for written in reversed(file.extends):
        path = _extended_path(file.folder, written, files.packages)
        parent = files.get(path) if path is not None and depth < _MAX_EXTENDS else None
        if parent is None:
            continue
        parent_base, parent_paths, parent_folder = _inherited(parent, files, depth + 1)
        base = base if base is not None else parent_base
        if paths is None:
            paths, paths_folder = parent_paths, parent_folder
    return base, paths, paths_folder


def _extended_path(folder: str, written: str, packages: list[JsPackage]) -> str | None:
    """The collection path of a config that `extends` names: relative to ``folder``, or a
    file of a package of the collection (`@acme/tsconfig/base.json`); `.json` may be left
    out, and a package alone means its tsconfig.json."""
    if written.startswith("."):
        path = _collection_path(folder, written)
    else:
        package = next((p for p in packages
                        if written == p.name or written.startswith(p.name + "/")), None)
        if package is None:
            return None  # installed under node_modules: not in the collection
        path = _collection_path(package.folder, written[len(package.name) + 1:] or "tsconfig.json")
    return path if path.endswith(".json") else path + ".json"


def _collection_path(folder: str, relative: str) -> str:
    joined = posixpath.normpath(posixpath.join(folder, relative))
    return "" if joined == "." else joined


def _without_comments(text: str) -> str:
    """JSON with comments (`//`, `/* */`) as JSON: one pass, strings kept as they are."""
    out: list[str] = []
    at, end = 0, len(text)
    while at < end:
        char = text[at]
        if char == '"':
            close = _string_end(text, at)
            out.append(text[at:close])
            at = close
        elif text.startswith("//", at):
            newline = text.find("\n", at)
            at = end if newline < 0 else newline
        elif text.startswith("/*", at):
            close = text.find("*/", at + 2)
            at = end if close < 0 else close + 2
        else:
            stop = _next_special(text, at)
            out.append(text[at:stop])
            at = stop
    return "".join(out)


_SPECIAL = re.compile(r'["/]')


def _next_special(text: str, at: int) -> int:
    match = _SPECIAL.search(text, at + 1)
    return match.start() if match else len(text)


def _string_end(text: str, start: int) -> int:
    """The index after the string opening at ``start`` (escapes skipped)."""
    at = start + 1
    while at < len(text):
        if text[at] == "\\":
            at += 2
        elif text[at] == '"':
            return at + 1
        else:
            at += 1
    return len(text)


# --- package.json ----------------------------------------------------------------------------

# Fields that name the package's entry point, after `exports`: where its sources are, what
# bundlers and Node load, its type declarations.
_ENTRY_FIELDS = ("source", "module", "main", "types", "typings")


def read_package_json(folder: str, text: str) -> JsPackage | None:
    """A package a monorepo's other packages may import by name, or whose files import by
    `#`; None with neither a name nor `imports`."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    name, imports = data.get("name"), data.get("imports")
    name = name if isinstance(name, str) else ""
    imports = imports if isinstance(imports, dict) else {}
    if not name and not imports:
        return None
    entries: dict[str, list[str]] = {}
    exports = data.get("exports")
    # `"exports": "./x.js"` and `{"import": ..., "types": ...}` are the package itself;
    # keys that start with "." are subpaths.
    subpaths = exports if isinstance(exports, dict) and all(
        isinstance(k, str) and k.startswith(".") for k in exports) else {".": exports}
    for subpath, target in subpaths.items():
        entries[subpath] = [_collection_path(folder, t) for t in _export_targets(target)]
    entries.setdefault(".", []).extend(
        _collection_path(folder, data[f]) for f in _ENTRY_FIELDS if isinstance(data.get(f), str))
    mapped = {pattern: tuple(dict.fromkeys(_collection_path(folder, t)
                                           for t in _export_targets(target)))
              for pattern, target in imports.items() if str(pattern).startswith("#")}
    return JsPackage(name, folder, {k: tuple(dict.fromkeys(v)) for k, v in entries.items()},
                     mapped)


def _export_targets(target: object) -> list[str]:
    """The paths an `exports` entry names, nested conditions (`import`, `types`...) in
    their order."""
    if isinstance(target, str):
        return [target]
    if isinstance(target, list):
        return [path for item in target for path in _export_targets(item)]
    if isinstance(target, dict):
        return [path for item in target.values() for path in _export_targets(item)]
    return []


# --- Cargo.toml ------------------------------------------------------------------------------


# `[section]` and `key = "value"` lines: all a crate's name and library root take (Python
# 3.10 has no TOML reader, and this needs none). An array of tables (`[[example]]`) is a
# section too, kept apart from `[example]`: its `name` is an example's, not the crate's.
_TOML_SECTION = re.compile(r"\[\[?[\w.-]+\]\]?")
_TOML_STRING = re.compile(r"""([\w-]+)[ \t]*=[ \t]*["']([^"']*)["']""")


def read_cargo_toml(folder: str, text: str) -> RustCrate | None:
    """The library crate a Cargo.toml declares; None for a workspace's alone."""
    values: dict[tuple[str, str], str] = {}
    section = ""
    for line in text.split("\n"):
        line = line.strip()
        if heading := _TOML_SECTION.match(line):
            section = heading.group()
        elif pair := _TOML_STRING.match(line):
            values.setdefault((section, pair.group(1)), pair.group(2))
    name = values.get(("[lib]", "name")) or values.get(("[package]", "name"))
    if not name:
        return None
    root = values.get(("[lib]", "path"), "src/lib.rs")
    return RustCrate(name.replace("-", "_"), _collection_path(folder, posixpath.dirname(root)))


ProjectReader = Callable[[str, str], "GoModule | _TsFile | JsPackage | RustCrate | None"]
# Project files by name, and what reads each: (its folder, its text) -> what it says.
PROJECT_FILES: dict[str, ProjectReader] = {
    "go.mod": read_go_mod,
    "tsconfig.json": _read_ts_file,
    "jsconfig.json": _read_ts_file,
    "package.json": read_package_json,
    "Cargo.toml": read_cargo_toml,
}
