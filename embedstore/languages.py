"""Language of a source file, named from its file name alone.

The names are the ones the chunker and the ``language`` search filter use, so
they are stable identifiers (lower case, no spaces), not display names.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# Anything not listed is still indexed as plain text when it decodes as UTF-8.
FALLBACK_LANGUAGE = "text"

_LANGUAGE_BY_EXTENSION: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyx": "cython",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hpp": "cpp",
    ".hh": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".scala": "scala",
    ".sc": "scala",
    ".groovy": "groovy",
    ".gradle": "groovy",
    ".rb": "ruby",
    ".php": "php",
    ".lua": "lua",
    ".r": "r",
    ".pl": "perl",
    ".pm": "perl",
    ".dart": "dart",
    ".ex": "elixir",
    ".exs": "elixir",
    ".erl": "erlang",
    ".hs": "haskell",
    ".ml": "ocaml",
    ".mli": "ocaml",
    ".clj": "clojure",
    ".jl": "julia",
    ".zig": "zig",
    ".vue": "vue",
    ".svelte": "svelte",
    ".sh": "shell",
    ".bash": "shell",
    ".zsh": "shell",
    ".fish": "fish",  # not Bash: its own syntax would parse as errors
    ".ps1": "powershell",
    ".bat": "batch",
    ".cmd": "batch",
    ".sql": "sql",
    ".html": "html",
    ".htm": "html",
    ".xhtml": "html",
    # Documents, read by embedstore.chunking.readers.
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".ipynb": "ipynb",
    ".epub": "epub",
    ".css": "css",
    ".scss": "scss",
    ".sass": "sass",
    ".less": "less",
    ".json": "json",
    ".jsonc": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".conf": "ini",
    ".xml": "xml",
    ".proto": "protobuf",
    ".graphql": "graphql",
    ".gql": "graphql",
    ".tf": "terraform",
    ".cmake": "cmake",
    ".mk": "make",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "rst",
    ".tex": "latex",
    ".txt": "text",
}

# Files whose name, not extension, says what they are.
_LANGUAGE_BY_FILE_NAME: dict[str, str] = {
    "makefile": "make",
    "gnumakefile": "make",
    "dockerfile": "dockerfile",
    "containerfile": "dockerfile",
    "cmakelists.txt": "cmake",
    "gemfile": "ruby",
    "rakefile": "ruby",
    "jenkinsfile": "groovy",
    ".bashrc": "shell",
    ".zshrc": "shell",
    ".profile": "shell",
}


def detect_language(path: str | Path) -> str:
    """Return the language name for ``path``, or ``"text"`` when it is not known.

    Matching ignores case, because ``README.MD`` and ``Main.JAVA`` exist in the
    wild and mean the same as their lower-case spellings.
    """
    name = Path(path).name.lower()
    by_name = _LANGUAGE_BY_FILE_NAME.get(name)
    if by_name is not None:
        return by_name
    # ``Dockerfile.dev`` and ``build.dockerfile`` are both Dockerfiles.
    if name.startswith("dockerfile.") or name.endswith(".dockerfile"):
        return "dockerfile"
    return _LANGUAGE_BY_EXTENSION.get(Path(name).suffix, FALLBACK_LANGUAGE)


@dataclass(frozen=True)
class TestCode:
    """How one language marks test code: by file name, or inside a file by attribute."""

    prefixes: tuple[str, ...] = ()  # file names that start so: `test_x.py`
    suffixes: tuple[str, ...] = ()  # file names that end so: `x_test.go`
    infixes: tuple[str, ...] = ()  # file names that hold it: `x.test.ts`, `x.spec.js`
    # Lines that, leading a definition, make it a test: Rust's `#[test]`, `#[cfg(test)]`.
    attributes: tuple[str, ...] = ()
    modules: frozenset[str] = frozenset()  # owners whose members are tests: Rust's `mod tests`


# Folders whose files are tests in every language; benchmarks exercise the code as tests do
# (Cargo's `benches/`, asv's and many JS packages' `benchmarks/`).
_TEST_FOLDERS = frozenset({"test", "tests", "__tests__", "spec", "specs", "benches",
                           "benchmarks"})
_JS_TESTS = TestCode(infixes=(".test.", ".spec."))
_TEST_CODE: dict[str, TestCode] = {
    "python": TestCode(prefixes=("test_", "conftest."), suffixes=("_test.py",)),
    "go": TestCode(suffixes=("_test.go",)),
    "javascript": _JS_TESTS,
    "typescript": _JS_TESTS,
    "tsx": _JS_TESTS,
    "rust": TestCode(
        attributes=("#[test]", "#[cfg(test)]", "#[tokio::test]", "#[bench]"),
        modules=frozenset({"tests"}),
    ),
    "java": TestCode(suffixes=("Test.java", "Tests.java")),
    "kotlin": TestCode(suffixes=("Test.kt", "Tests.kt")),
    "csharp": TestCode(suffixes=("Tests.cs", "Test.cs")),
    "ruby": TestCode(suffixes=("_spec.rb", "_test.rb")),
}


def is_test_code(path: str, language: str, symbol: str | None = None, text: str = "") -> bool:
    """Whether a unit of ``path`` is test code: its file or folder says so, or (in a
    language that keeps tests beside the code, as Rust does) its attributes or module.

    ``symbol`` and ``text`` are the unit's; only its leading lines are read.
    """
    parts = path.replace("\\", "/").split("/")
    if any(part in _TEST_FOLDERS for part in parts[:-1]):
        return True
    rule = _TEST_CODE.get(language)
    if rule is None:
        return False
    name = parts[-1]
    if name.startswith(rule.prefixes) or name.endswith(rule.suffixes):
        return True
    if any(infix in name for infix in rule.infixes):
        return True
    # A file that is a test module itself: Rust's `tests.rs` beside `#[cfg(test)] mod tests;`.
    if name.rpartition(".")[0] in rule.modules:
        return True
    owners = {owner for part in (symbol or "").split(", ") for owner in part.split(".")[:-1]}
    if not rule.modules.isdisjoint(owners):
        return True
    return _marked_as_test(rule, text)


def _marked_as_test(rule: TestCode, text: str) -> bool:
    """Whether the attributes leading ``text`` make it test code (Rust's `#[test]`)."""
    return rule.attributes != () and any(
        line.strip().startswith(rule.attributes) for line in _leading_lines(text)
    )


def in_test_item(code: str, language: str) -> bool:
    """Whether the end of ``code`` lies inside a top-level item that its attributes make
    test code, where the language marks tests so (Rust's `#[cfg(test)] mod tests {`)."""
    rule = _TEST_CODE.get(language)
    if rule is None or not rule.attributes:
        return False
    lines = code.split("\n")
    for at in range(len(lines) - 1, -1, -1):
        line = lines[at]
        if not line or line[0].isspace() or line.startswith(("//", "/*", "*")):
            continue
        if line.startswith("}"):
            return False
        first = at
        while first > 0 and lines[first - 1].startswith(("#[", "//")):
            first -= 1
        return _marked_as_test(rule, "\n".join(lines[first:at + 1]))
    return False


def tested_file_name(path: str, language: str) -> str | None:
    """The name of the file a test file is named after (`x_test.go` -> `x.go`, `test_x.py`
    -> `x.py`, `x.test.ts` -> `x.ts`, `XTest.java` -> `X.java`); None for no test file."""
    rule = _TEST_CODE.get(language)
    if rule is None:
        return None
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    named = [name[len(p):] for p in rule.prefixes if name.startswith(p)]
    named += [name[: -len(s)] + Path(s).suffix for s in rule.suffixes if name.endswith(s)]
    named += [stem + "." + rest for stem, infix, rest in
              (name.partition(i) for i in rule.infixes) if infix]
    # `conftest.py` and `_test.go` are named after no file.
    return next((n for n in named if "." in n[1:] and not n.startswith(".")), None)


def _leading_lines(text: str) -> list[str]:
    """A unit's lines up to its first that is neither comment nor attribute: its header."""
    lines = []
    for line in text.split("\n"):
        lines.append(line)
        stripped = line.strip()
        if stripped and not stripped.startswith(("//", "#[", "/*", "*")):
            break
    return lines


# How a line comment starts, where it is not `//` (C, Go, Rust, Java, JS, TS, ...).
_LINE_COMMENTS: dict[str, str] = {
    **dict.fromkeys(
        ("python", "cython", "ruby", "shell", "perl", "r", "elixir", "julia", "yaml", "toml",
         "make", "cmake", "dockerfile", "powershell", "fish", "terraform", "text"),
        "#",
    ),
    **dict.fromkeys(("lua", "sql", "haskell"), "--"),
    "erlang": "%",
    "latex": "%",
    "clojure": ";",
}


def line_comment(language: str) -> str:
    """What starts a comment line in ``language``: a path header in a prompt stays inert."""
    return _LINE_COMMENTS.get(language, "//")


def is_comment_line(line: str, language: str) -> bool:
    """Whether ``line`` holds only comment: a line comment, or where ``//`` comments (the C
    family) a line of a `/* ... */` block."""
    stripped = line.strip()
    marker = line_comment(language)
    return stripped.startswith((marker, "/*", "*") if marker == "//" else (marker,))


# A member's declaration that no other file may reach: Java's and TypeScript's `private`
# before its name. JavaScript's `#name` says it by the name; Python's `_name` is only a
# convention, which subclasses in other files break.
_PRIVATE = re.compile(r"\bprivate\b")
_PRIVATE_BY_KEYWORD = frozenset({"java", "typescript", "tsx", "kotlin", "csharp"})


def is_private_member(name: str, declaration: str, language: str) -> bool:
    """Whether the member ``name``, declared by ``declaration`` (its header's text), can be
    reached only from its own class: code in another file never uses it."""
    if name.startswith("#"):
        return True
    if language not in _PRIVATE_BY_KEYWORD:
        return False
    before = declaration.split(name, 1)[0]
    return _PRIVATE.search(before) is not None


# Rust's receiver of a method: `self`, `mut self`, `&self`, `&'a mut self`; read after the
# last `fn name` of the header, since its doc comment may quote another call (`into(self)`).
_RUST_FN = re.compile(r"\bfn\s+[A-Za-z_]\w*")
_RUST_SELF = re.compile(r"\(\s*(?P<ref>&\s*(?:'\w+\s+)?(?P<mut>mut\s+)?)?(?:mut\s+)?self\b")
_RUST_COPY = re.compile(r"\bderive\([^)]*\bCopy\b")


def _rust_callable(member: str, borrow: str, owner: str) -> bool:
    """A function without `self` is the type's, not the value's; through `&` only `&self`
    methods, through `&mut` `&mut self` ones too, and those taking `self` by value only
    where the type is `Copy`."""
    names = [found.end() for found in _RUST_FN.finditer(member)]
    found = _RUST_SELF.search(member, names[-1] if names else 0)
    if found is None:
        return False
    # A typed receiver (`self: Pin<&mut Self>`, `self: &Self`) is not read: taken as callable.
    if not borrow or member[found.end():].lstrip().startswith(":"):
        return True
    if found["ref"] is None:
        return _RUST_COPY.search(owner) is not None
    return borrow == "&mut" or found["mut"] is None


# (member's header text, how the value is held: "&", "&mut", "" for owned, its class's
# header text) -> whether that value can call the member; a language without one calls all.
CallableThrough = Callable[[str, str, str], bool]
_CALLABLE_THROUGH: dict[str, CallableThrough] = {"rust": _rust_callable}


def callable_through(language: str) -> CallableThrough | None:
    """Which members a value held by a name can call, where ``language`` restricts them
    (Rust, by its methods' `self`); None where a value can call every member."""
    return _CALLABLE_THROUGH.get(language)


@dataclass(frozen=True)
class Declared:
    """A definition as a language's visibility rules read it."""

    path: str
    qualname: str
    naming: str  # the line that names it
    owner: str  # the head of the block it is in (a class's, an `impl`'s); "" at the top level
    text: str  # its file's text


# Rust: `pub`, `pub(crate)`, `pub(super)`... opening the line that names an item.
_RUST_PUB = re.compile(r"\s*pub\b")
# Owners whose members are as visible as they are, with no `pub` of their own: a trait and
# its implementations' methods, an enum's variants.
_RUST_OPEN_OWNER = re.compile(r"\btrait\b|\benum\b|\bimpl\b[^{]*\bfor\b")


def _rust_module_folder(path: str) -> str:
    """The folder of the module that ``path`` is and of its submodules' files: `src/a/b/`
    for `src/a/b.rs` and for `src/a/b/mod.rs`; `src/` for a crate root."""
    folder, _, base = path.rpartition("/")
    prefix = f"{folder}/" if folder else ""
    if base in ("mod.rs", "lib.rs", "main.rs"):
        return prefix
    return f"{prefix}{base.removesuffix('.rs')}/"


def _rust_reachable(item: Declared, user: str) -> bool:
    """An item without `pub` is its module's and its submodules' alone (macros, a trait's
    methods and an enum's variants aside; a member whose owner is unknown too)."""
    if _RUST_PUB.match(item.naming) or "macro_rules!" in item.naming:
        return True
    if "." in item.qualname and (not item.owner or _RUST_OPEN_OWNER.search(item.owner)):
        return True
    return user.startswith(_rust_module_folder(item.path))


def _go_reachable(item: Declared, user: str) -> bool:
    """A name that does not start with a capital is its package's (its folder's) alone."""
    name = item.qualname.rpartition(".")[2]
    return name[:1].isupper() or item.path.rpartition("/")[0] == user.rpartition("/")[0]


# A JavaScript or TypeScript file with an import or an export is a module; one without is
# a script, whose top-level names are global.
_JS_MODULE = re.compile(r"^[ \t]*(?:import|export)\b", re.MULTILINE)
_JS_EXPORTED = re.compile(r"^[ \t]*(?:export|declare)\b")
# What a module exports besides its `export` declarations: `export { a, b as c }`,
# `export default a`, CommonJS's `exports.a =` and `module.exports`.
_JS_EXPORT_LIST = re.compile(
    r"\bexport[ \t]+(?:type[ \t]+)?\{(?P<list>[^}]*)\}"
    r"|\bexport[ \t]+default[ \t]+(?P<default>[\w$]+)|\bexports\.(?P<common>[\w$]+)")


@functools.lru_cache(maxsize=64)  # a file's text is one cached string per answer's files
def _js_exports(text: str) -> frozenset[str] | None:
    """The names a module exports by list or by CommonJS; None for a script, or for a
    module that assigns `module.exports` (anything may be in it)."""
    if not _JS_MODULE.search(text) or "module.exports" in text:
        return None
    names: set[str] = set()
    for found in _JS_EXPORT_LIST.finditer(text):
        if found["list"] is not None:
            names.update(part.split(" as ")[0].strip() for part in found["list"].split(","))
        else:
            names.add(found["default"] or found["common"])
    return frozenset(names)


def _js_reachable(item: Declared, user: str) -> bool:
    """A module's top-level name that it does not export is its own (a declaration file's,
    a script's and a class's members' are everyone's)."""
    if "." in item.qualname or item.path.endswith(".d.ts") or _JS_EXPORTED.match(item.naming):
        return True
    exported = _js_exports(item.text)
    return exported is None or item.qualname in exported


# Java: what a declaration's modifiers open to other packages; owners whose members are
# public with no modifier of their own.
_JAVA_OPEN = re.compile(r"\b(?:public|protected)\b")
_JAVA_OPEN_OWNER = re.compile(r"\b(?:interface|enum|record)\b")
_JAVA_PACKAGE = re.compile(r"^[ \t]*package[ \t]+(?P<name>[\w.]+)[ \t]*;", re.MULTILINE)


def _java_reachable(item: Declared, user: str) -> bool:
    """A class, or a member, with no `public` (or `protected`) is its package's alone (a
    test tree's `src/test/java/a/b/` is a/b's too); an interface's, an enum's and a
    record's members are public."""
    package = _JAVA_PACKAGE.search(item.text)
    folder = package["name"].replace(".", "/") if package else item.path.rpartition("/")[0]
    if f"/{user.rpartition('/')[0]}".endswith(f"/{folder}"):
        return True
    if _JAVA_OPEN.search(item.naming):
        return True
    return "." in item.qualname and _JAVA_OPEN_OWNER.search(item.owner) is not None


# (the definition, the path of the file that would use it) -> whether that file can name it.
ReachableFrom = Callable[[Declared, str], bool]
_REACHABLE_FROM: dict[str, ReachableFrom] = {
    "rust": _rust_reachable, "go": _go_reachable, "typescript": _js_reachable,
    "tsx": _js_reachable, "javascript": _js_reachable, "java": _java_reachable}


def reachable_from(language: str) -> ReachableFrom | None:
    """Which definitions code in another file can name, where ``language``'s visibility
    rules say (Rust's `pub`, Go's capitals, a JavaScript module's exports, Java's `public`);
    None where any file may name any."""
    return _REACHABLE_FROM.get(language)


# Languages whose attributes and annotations above a definition say little of how to call it
# (`#[inline]`, `#[must_use]`, `@Override`): a signature in an outline starts below them.
# Python's decorators stay (`@property`, `@classmethod` say how it is called).
_CALL_NEUTRAL_ANNOTATIONS = frozenset({"rust", "java"})


def outline_skips_annotations(language: str) -> bool:
    """Whether an outline shows ``language``'s definitions from the line naming them."""
    return language in _CALL_NEUTRAL_ANNOTATIONS
