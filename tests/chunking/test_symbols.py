"""Symbol tables: each language's definitions and imports, and where imports lead."""

from __future__ import annotations

import pytest

from embedstore.chunking.projects import Project
from embedstore.chunking.symbols import (
    ANY_VALUE,
    Definition,
    FileSymbols,
    ImportRef,
    extract_symbols,
    identifiers,
    resolve_import,
    rust_modules_placed,
)

Row = tuple[str, str, int, int, int, str]  # qualname, kind, start, end, signature end, doc


def rows(text: str, language: str) -> list[Row]:
    return [
        (d.qualname, d.kind, d.start_line, d.end_line, d.signature_end_line, d.doc)
        for d in extract_symbols(text, language).definitions
    ]


def imports(text: str, language: str) -> list[tuple[str, str | None, str, int, int]]:
    return [
        (i.module, i.name, i.alias, i.level, i.line)
        for i in extract_symbols(text, language).imports
    ]


PYTHON = '''\
"""Client module."""
import a.b as c, os.path
from .x import y as z
from .. import m
from pkg import (
    first,
    second as other,
)
from x import *

# Seconds before giving up.
DEFAULT_TIMEOUT: float = 3.0
client = None
WIDTH, height = 1, 2

try:
    import json
except ImportError:
    json = None


@dataclass
@other
class Client(Base):
    """Talks to the server.

    Longer text.
    """

    retries = 3
    timeout: int

    def get(
        self,
        path: str,
    ) -> bytes:
        \'\'\'Fetch ``path``.\'\'\'

        def nested():
            pass

        import local
        return b""

    @property
    def name(self): return "x"

    class Inner:
        def hidden(self): pass


# Starts a client.
async def start(url):
    return Client(url)
'''


def test_python_definitions() -> None:
    assert rows(PYTHON, "python") == [
        ("DEFAULT_TIMEOUT", "constant", 12, 12, 12, "Seconds before giving up."),
        ("client", "variable", 13, 13, 13, ""),
        ("WIDTH", "constant", 14, 14, 14, ""),
        ("height", "variable", 14, 14, 14, ""),
        ("json", "variable", 19, 19, 19, ""),
        ("Client", "class", 22, 49, 24, "Talks to the server."),
        ("Client.retries", "variable", 30, 30, 30, ""),
        ("Client.timeout", "variable", 31, 31, 31, ""),
        ("Client.get", "method", 33, 43, 36, "Fetch ``path``."),
        ("Client.name", "method", 45, 46, 46, ""),
        ("start", "function", 53, 54, 53, "Starts a client."),
    ]


def test_python_definition_fields() -> None:
    get = extract_symbols(PYTHON, "python").definitions[8]
    assert get == Definition("get", "Client.get", "method", 33, 43, 36, "Fetch ``path``.")


def test_python_imports() -> None:
    assert imports(PYTHON, "python") == [
        ("a.b", None, "c", 0, 2),
        ("os.path", None, "os.path", 0, 2),
        ("x", "y", "z", 1, 3),
        ("", "m", "m", 2, 4),
        ("pkg", "first", "first", 0, 5),
        ("pkg", "second", "other", 0, 5),
        ("x", "*", "*", 0, 9),
        ("json", None, "json", 0, 17),
        ("local", None, "local", 0, 42),  # an import inside a function binds there too
    ]


def test_python_member_uses_count_what_the_file_reaches_through_its_imports() -> None:
    text = ("import os.path\nfrom . import events\n\nevents.sleep(1)\nx = events.sleep\n"
            "events.loop().run()\nself.events.other()\nlocal.attr\nos.path.join()\n")
    uses = extract_symbols(text, "python").member_uses
    # `self.events.other` is no use of the module; `local` is not imported.
    assert {k: n for k, n in uses.items() if k[0] != ANY_VALUE} == {
        ("events", "sleep"): 2, ("events", "loop"): 1, ("os", "path"): 2}


def test_member_uses_count_every_method_call_through_any_value() -> None:
    text = ("fn f(cmd: &Command) {\n    cmd.get_name();\n    let v = self.args().get_name ();\n"
            "    v.iter().collect::<Vec<_>>();\n    let n = cmd.name;\n    1.5f64.max(2.0);\n}\n")
    calls = {member: n for (head, member), n in extract_symbols(text, "rust").member_uses.items()
             if head == ANY_VALUE}
    # A field read (`cmd.name`) is no call; a turbofish is still one.
    assert calls == {"get_name": 2, "args": 1, "iter": 1, "collect": 1, "max": 1}


def test_python_signature_is_capped_at_twenty_lines() -> None:
    parameters = "".join(f"    a{i},\n" for i in range(30))
    text = f"def f(\n{parameters}):\n    pass\n"
    assert rows(text, "python") == [("f", "function", 1, 33, 20, "")]


OVERLOAD_DOC = "".join(f"   * Line {i} of what the overload does.\n" for i in range(16))
# effect's shape: a typed const whose type lists its overloads, each under a long JSDoc block.
DOCUMENTED_OVERLOADS = f"""export const take: {{
  /**
{OVERLOAD_DOC}   */
  (n: number): <A>(self: Iterable<A>) => Array<A>
  /**
{OVERLOAD_DOC}   */
  <A>(self: Iterable<A>, n: number): Array<A>
}} = dual(2, <A>(self: Iterable<A>, n: number): Array<A> => {{
  const input = Array.from(self)
  return input.slice(0, n)
}})
"""


def test_a_signatures_comment_lines_do_not_count_towards_its_cap() -> None:
    (row,) = rows(DOCUMENTED_OVERLOADS, "typescript")
    assert row[:5] == ("take", "constant", 1, 43, 40)


def test_a_typed_values_signature_ends_where_its_value_starts() -> None:
    text = "pub const MIN: Point = Point {\n    x: 0,\n    y: 0,\n};\n"
    assert [r[:5] for r in rows(text, "rust")] == [("MIN", "constant", 1, 4, 1)]
    # Untyped, the value is all that says what it is.
    text = "export const LIMITS = {\n  low: 1,\n  high: 9,\n} as const\n"
    assert [r[:5] for r in rows(text, "typescript")] == [("LIMITS", "constant", 1, 4, 4)]
    text = "package p\n\nvar Names map[int]string = map[int]string{\n\t1: \"one\",\n}\n"
    assert [r[:5] for r in rows(text, "go")] == [("Names", "variable", 3, 5, 3)]


def test_python_code_cut_in_a_call_keeps_imports_and_earlier_definitions() -> None:
    text = (
        "import os\n"
        "from .util import helper\n"
        "\n"
        "LIMIT = 3\n"
        "\n"
        "def first(a):\n"
        "    return a\n"
        "\n"
        "def second(b):\n"
        "    total = first(b)\n"
        "    return helper(total,\n"
    )
    symbols = extract_symbols(text, "python")
    assert symbols.imports == [
        ImportRef("os", None, "os", 0, 1),
        ImportRef("util", "helper", "helper", 1, 2),
    ]
    assert [(d.qualname, d.start_line, d.end_line) for d in symbols.definitions][:2] == [
        ("LIMIT", 4, 4),
        ("first", 6, 7),
    ]


def test_python_module_level_if_blocks_hold_definitions() -> None:
    text = """\
if TYPE_CHECKING:
    from a import B
else:
    def B():
        def inner(): pass
"""
    assert rows(text, "python") == [("B", "function", 4, 5, 4, "")]
    assert imports(text, "python") == [("a", "B", "B", 0, 2)]


TYPESCRIPT = """\
import X from './a';
import {a as b, c} from '../c';
import * as m from 'x';
import D, {e} from "./d";
import type {T} from './t';
import './side-effects';
import fs = require('fs');
const {a: aa, f} = require('./x');
const mod = require('./x');

export const LIMIT = 1, other = 2;
export let counter = 0;
const hidden = 3;
/** A base class. */
@sealed
export abstract class Base<T> extends Root implements I {
  static readonly MAX = 3;
  constructor() {}
  // Gets a thing.
  @memo
  get(a: string): void {}
}
export interface I { f(): void }
export type U = string | number;
export enum Color { Red, Green }
/**
 * Sums two numbers.
 */
export function sum(a: number,
  b: number): number {
  return a + b;
}
const double = (x: number) => {
  return 2 * x;
};
export { q as r } from './q';
"""


def test_typescript_definitions() -> None:
    assert rows(TYPESCRIPT, "typescript") == [
        ("LIMIT", "constant", 11, 11, 11, ""),
        ("other", "constant", 11, 11, 11, ""),
        ("counter", "variable", 12, 12, 12, ""),
        ("Base", "class", 15, 22, 16, "A base class."),
        ("Base.MAX", "variable", 17, 17, 17, ""),  # a field: `Base.MAX` reads it
        ("Base.constructor", "method", 18, 18, 18, ""),
        ("Base.get", "method", 20, 21, 21, "Gets a thing."),
        ("I", "type", 23, 23, 23, ""),
        ("U", "type", 24, 24, 24, ""),
        ("Color", "type", 25, 25, 25, ""),
        ("Color.Red", "constant", 25, 25, 25, ""),  # `Color.Red` reads an enum's member
        ("Color.Green", "constant", 25, 25, 25, ""),
        ("sum", "function", 29, 32, 30, "Sums two numbers."),
        ("double", "function", 33, 35, 33, ""),
    ]


def test_typescript_imports() -> None:
    assert imports(TYPESCRIPT, "typescript") == [
        ("./a", "default", "X", 0, 1),
        ("../c", "a", "b", 0, 2),
        ("../c", "c", "c", 0, 2),
        ("x", None, "m", 0, 3),
        ("./d", "default", "D", 0, 4),
        ("./d", "e", "e", 0, 4),
        ("./t", "T", "T", 0, 5),
        ("fs", None, "fs", 0, 7),
        ("./x", "a", "aa", 0, 8),
        ("./x", "f", "f", 0, 8),
        ("./x", None, "mod", 0, 9),
        ("./q", "q", "r", 0, 36),  # a re-export imports what it passes on
    ]


def test_javascript_and_tsx_share_the_readers() -> None:
    text = "import {h} from './h';\nexport const A = 1;\nfunction f() {}\n"
    for language in ("javascript", "tsx"):
        assert imports(text, language) == [("./h", "h", "h", 0, 1)]
        assert rows(text, language) == [
            ("A", "constant", 2, 2, 2, ""),
            ("f", "function", 3, 3, 3, ""),
        ]


COMMONJS = """\
var compileETag = require('./utils').compileETag;

/** Compile a value into an ETag function. */
exports.compileETag = function (val) {
  return val;
};
module.exports.MAX_AGE = 60;
exports.etag = compileETag(true);

function Layer(path) {
  this.path = path;
}

Layer.prototype.match = function match(path) {
  return path === this.path;
};

app.init = function init() {};
app.locals = {};
this.ready = function () {};
"""


def test_commonjs_assignments_are_definitions() -> None:
    # express's shapes: what `exports.` names is the module's, a constructor with
    # prototype methods is a class, and an object's assigned function is its method;
    # state set on an object (`app.locals`) or on `this` defines nothing.
    assert rows(COMMONJS, "javascript") == [
        ("compileETag", "function", 4, 6, 4, "Compile a value into an ETag function."),
        ("MAX_AGE", "constant", 7, 7, 7, ""),
        ("etag", "variable", 8, 8, 8, ""),
        ("Layer", "class", 10, 12, 10, ""),
        ("Layer.match", "method", 14, 16, 14, ""),
        ("app.init", "method", 18, 18, 18, ""),
    ]


def test_what_module_exports_names_is_a_definition() -> None:
    # pino's shapes: a named function as the whole export, and local values exported by
    # an object literal; a local value the module keeps to itself stays no definition.
    text = (
        "const streamSym = Symbol('stream');\nconst cache = new Map();\n"
        "module.exports = { streamSym };\n"
        "module.exports = function getCallers () {\n  return [];\n};\n"
    )
    assert rows(text, "javascript") == [
        ("streamSym", "constant", 1, 1, 1, ""),
        ("getCallers", "function", 4, 6, 4, ""),
    ]


def test_a_required_modules_member_is_a_named_import() -> None:
    assert imports(COMMONJS, "javascript") == [("./utils", "compileETag", "compileETag", 0, 1)]


GO = """\
package client

import "fmt"
import (
\t"net/http"
\tstr "strings"
\t_ "embed"
)

// Max is the most.
const Max = 3
const (
\tA, B = 1, 2
\t// C is the third.
\tC
)
var x int

type (
\tT struct{ a int }
\tU = int
)

// I is an interface.
type I interface {
\tF()
}

// Get gets.
func (p *T) Get(a int,
\tb int) int {
\treturn 1
}

func F() {}
"""


def test_go_definitions() -> None:
    assert rows(GO, "go") == [
        ("Max", "constant", 11, 11, 11, "Max is the most."),
        ("A", "constant", 13, 13, 13, ""),
        ("B", "constant", 13, 13, 13, ""),
        ("C", "constant", 15, 15, 15, "C is the third."),
        ("x", "variable", 17, 17, 17, ""),
        ("T", "type", 20, 20, 20, ""),
        ("U", "type", 21, 21, 21, ""),
        ("I", "type", 25, 27, 25, "I is an interface."),
        ("T.Get", "method", 30, 33, 31, "Get gets."),
        ("F", "function", 35, 35, 35, ""),
    ]


def test_go_imports() -> None:
    assert imports(GO, "go") == [
        ("fmt", None, "fmt", 0, 3),
        ("net/http", None, "http", 0, 5),
        ("strings", None, "str", 0, 6),
        ("embed", None, "_", 0, 7),
    ]


RUST = """\
use crate::a::b::{C, d as e};
use super::x;
use std::collections::HashMap as Map;
use self::y::*;
use a::{b::{c, D}, self};
pub mod y;
mod inline { fn inner() {} }
/// The most.
pub const MAX: u32 = 3;
static mut COUNT: i32 = 0;
/// A point.
#[derive(Debug)]
pub struct Point { x: i32 }
pub trait Shape { fn area(&self) -> f64; fn name(&self) {} }
impl<T> Shape for Point<T> {
    /// The area.
    fn area(&self,
            scale: f64) -> f64 {
        1.0
    }
    const SIDES: i32 = 0;
}
pub enum Kind { A }
type Alias = i32;
macro_rules! m { () => {} }
impl<'a> Shape for &'a Kind { fn name(&self) {} }
"""


def test_rust_definitions() -> None:
    assert rows(RUST, "rust") == [
        ("inner", "function", 7, 7, 7, ""),  # an inline module's items count as the file's
        ("MAX", "constant", 9, 9, 9, "The most."),
        ("COUNT", "variable", 10, 10, 10, ""),
        ("Point", "type", 12, 13, 13, "A point."),
        ("Shape", "type", 14, 14, 14, ""),
        ("Shape.area", "method", 14, 14, 14, ""),  # a trait's signature is its member too
        ("Shape.name", "method", 14, 14, 14, ""),
        ("Point.area", "method", 17, 20, 18, "The area."),
        ("Point.SIDES", "constant", 21, 21, 21, ""),
        ("Kind", "type", 23, 23, 23, ""),
        ("Alias", "type", 24, 24, 24, ""),
        ("Kind.name", "method", 26, 26, 26, ""),  # an impl for a borrow is the type's
    ]


@pytest.mark.parametrize(
    ("language", "code", "names"),
    [
        ("go", "package a\n\nvar (\n\twd, _ = os.Getwd()\n)\n\nvar _ I = (*T)(nil)\n", ["wd"]),
        ("rust", "const _: () = assert!(N > 0);\nconst N: u8 = 1;\n", ["N"]),
        ("python", "_ = gettext.gettext\n", ["_"]),  # a name like any other here
    ],
)
def test_the_blank_identifier_declares_nothing(language: str, code: str, names: list[str]) -> None:
    assert [d.name for d in extract_symbols(code, language).definitions] == names


def test_rust_imports() -> None:
    assert imports(RUST, "rust") == [
        ("crate::a::b", "C", "C", 0, 1),
        ("crate::a::b", "d", "e", 0, 1),
        ("super", "x", "x", 0, 2),
        ("std::collections", "HashMap", "Map", 0, 3),
        ("self::y", "*", "*", 0, 4),
        ("a::b", "c", "c", 0, 5),
        ("a::b", "D", "D", 0, 5),
        ("a", None, "a", 0, 5),
        ("self", "y", "y", 0, 6),
    ]


JAVA = """\
package com.acme;
import java.util.List;
import com.acme.util.*;
import static com.acme.Names.first;
/** Talks to the server.
 * More text. */
@Service
public class Client<T> extends Base {
    public static final int MAX = 3, MIN = 1;
    private int count;
    // Gets a thing.
    public int get(int a,
                   int b) {
        return 1;
    }
    class Inner { void hidden() {} }
}
interface Api { int VERSION = 1; void call(); }
enum Color { RED; void paint() {} }
"""


def test_java_definitions() -> None:
    assert rows(JAVA, "java") == [
        ("Client", "class", 7, 17, 8, "Talks to the server."),
        ("Client.MAX", "constant", 9, 9, 9, ""),
        ("Client.MIN", "constant", 9, 9, 9, ""),
        ("Client.count", "variable", 10, 10, 10, ""),  # an instance field: `client.count`
        ("Client.get", "method", 12, 15, 13, "Gets a thing."),
        ("Api", "type", 18, 18, 18, ""),
        ("Api.VERSION", "constant", 18, 18, 18, ""),
        ("Api.call", "method", 18, 18, 18, ""),
        ("Color", "type", 19, 19, 19, ""),
        ("Color.paint", "method", 19, 19, 19, ""),
    ]


def test_javascript_class_fields_are_variables_of_their_class() -> None:
    text = "class Store {\n  items = [];\n  static #count = 0;\n  get() {}\n}\n"
    assert rows(text, "javascript") == [
        ("Store", "class", 1, 5, 1, ""),
        ("Store.items", "variable", 2, 2, 2, ""),
        ("Store.#count", "variable", 3, 3, 3, ""),
        ("Store.get", "method", 4, 4, 4, ""),
    ]


def test_java_member_uses_count_classes_reached_with_no_import() -> None:
    # A Java file reaches its own package's classes (and java.lang's) with no import:
    # `Bridge.TAG` counts toward Bridge's members; a variable's `engine.bridge` does not.
    text = ("package com.acme;\nclass Server {\n    String a = Bridge.TAG;\n"
            "    int b = Bridge.TAG.length() + engine.bridge.size();\n}\n")
    uses = extract_symbols(text, "java").member_uses
    assert {k: n for k, n in uses.items() if k[0] != ANY_VALUE} == {("Bridge", "TAG"): 2}


def test_java_imports() -> None:
    assert imports(JAVA, "java") == [
        ("java.util", "List", "List", 0, 2),
        ("com.acme.util", "*", "*", 0, 3),
        ("com.acme.Names", "first", "first", 0, 4),
    ]


KOTLIN = """\
package com.acme
import com.acme.util.Helper
import com.acme.model.*
import org.lib.Thing as Other
/** A client. */
class Client(val url: String) : Base() {
    fun get(a: Int,
            b: Int): Int {
        return 1
    }
    val plain = 1
    companion object {
        const val MAX = 3
        fun create() = Client("x")
    }
}
interface Api {
    fun call()
}
enum class Color { RED }
const val TOP = 1
val shared = 2
fun main() = Unit
typealias Name = String
"""


def test_kotlin_definitions() -> None:
    assert rows(KOTLIN, "kotlin") == [
        ("Client", "class", 6, 16, 6, "A client."),
        ("Client.get", "method", 7, 10, 8, ""),
        ("Client.MAX", "constant", 13, 13, 13, ""),
        ("Client.create", "method", 14, 14, 14, ""),
        ("Api", "type", 17, 19, 17, ""),
        ("Api.call", "method", 18, 18, 18, ""),
        ("Color", "type", 20, 20, 20, ""),
        ("TOP", "constant", 21, 21, 21, ""),
        ("shared", "variable", 22, 22, 22, ""),
        ("main", "function", 23, 23, 23, ""),
        ("Name", "type", 24, 24, 24, ""),
    ]


def test_kotlin_imports() -> None:
    assert imports(KOTLIN, "kotlin") == [
        ("com.acme.util", "Helper", "Helper", 0, 2),
        ("com.acme.model", "*", "*", 0, 3),
        ("org.lib", "Thing", "Other", 0, 4),
    ]


def test_other_languages_have_definitions_but_no_imports() -> None:
    text = "#include <stdio.h>\n// Adds.\nint add(int a,\n        int b) {\n  return a + b;\n}\n"
    assert extract_symbols(text, "c") == FileSymbols(
        [Definition("add", "add", "function", 3, 6, 4, "Adds.")], []
    )


def test_languages_without_a_grammar_have_no_symbols() -> None:
    assert extract_symbols("# Title\n\nText.", "markdown") == FileSymbols([], [])
    assert extract_symbols("anything", "text") == FileSymbols([], [])


SAMPLES = {
    "python": PYTHON,
    "typescript": TYPESCRIPT,
    "go": GO,
    "rust": RUST,
    "java": JAVA,
    "kotlin": KOTLIN,
}


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_every_prefix_of_a_file_is_read_without_error(language: str) -> None:
    text = SAMPLES[language]
    for cut in range(0, len(text), 7):
        symbols = extract_symbols(text[:cut] + "\ud800 (", language)
        for definition in symbols.definitions:
            assert 1 <= definition.start_line <= definition.signature_end_line
            assert definition.signature_end_line <= definition.end_line


# --- resolve_import ------------------------------------------------------------------------


def ref(module: str, name: str | None = None, level: int = 0) -> ImportRef:
    return ImportRef(module, name, name or module, level, 1)


PYTHON_PATHS = frozenset(
    {
        "src/pkg/__init__.py",
        "src/pkg/core.py",
        "src/pkg/sub/__init__.py",
        "src/pkg/sub/tools.py",
        "src/pkg/sub/deep/leaf.py",
        "tests/fixtures/pkg/core.py",
        "tests/test_core.py",
        "setup.py",
    }
)


@pytest.mark.parametrize(
    ("importing", "imported", "expected"),
    [
        # `import pkg.core` under a src/ layout.
        ("src/pkg/sub/tools.py", ref("pkg.core"), ["src/pkg/core.py"]),
        # Two copies: the one nearer the importing file wins.
        ("tests/fixtures/pkg/run.py", ref("pkg.core"), ["tests/fixtures/pkg/core.py"]),
        # A package is its __init__.py.
        ("setup.py", ref("pkg.sub"), ["src/pkg/sub/__init__.py"]),
        # `from pkg import core`: the submodule, then the package that may define `core`.
        ("src/app.py", ref("pkg", "core"), ["src/pkg/core.py", "src/pkg/__init__.py"]),
        # Equally near copies: all of them.
        ("setup.py", ref("pkg.core"), ["src/pkg/core.py", "tests/fixtures/pkg/core.py"]),
        # `from pkg.core import Client`: a name in the module.
        ("src/pkg/__init__.py", ref("pkg.core", "Client"), ["src/pkg/core.py"]),
        # Level 1: `from .tools import run` and `from . import tools`.
        ("src/pkg/sub/__init__.py", ref("tools", "run", 1), ["src/pkg/sub/tools.py"]),
        (
            "src/pkg/sub/tools.py",
            ref("", "tools", 1),
            ["src/pkg/sub/tools.py", "src/pkg/sub/__init__.py"],
        ),
        # Level 2: `from ..core import Client` and `from ..sub.deep import leaf`.
        ("src/pkg/sub/tools.py", ref("core", "Client", 2), ["src/pkg/core.py"]),
        ("src/pkg/sub/tools.py", ref("sub.deep", "leaf", 2), ["src/pkg/sub/deep/leaf.py"]),
        # Above the collection's root.
        ("setup.py", ref("x", "y", 2), []),
        # Standard library and third party.
        ("src/pkg/core.py", ref("os.path"), []),
        ("src/pkg/core.py", ref("requests", "get"), []),
    ],
)
def test_resolve_python(importing: str, imported: ImportRef, expected: list[str]) -> None:
    assert resolve_import(imported, importing, "python", PYTHON_PATHS) == expected


def test_resolve_accepts_any_collection() -> None:
    paths = ["src/pkg/core.py", "src/pkg/__init__.py"]
    assert resolve_import(ref("pkg.core"), "app.py", "python", paths) == ["src/pkg/core.py"]
    assert resolve_import(ref("pkg.core"), "app.py", "python", set(paths)) == ["src/pkg/core.py"]


def test_resolve_python_reads_extracted_imports() -> None:
    text = "from ..core import Client\nimport pkg.sub.tools\n"
    found = [
        resolve_import(i, "src/pkg/sub/tools.py", "python", PYTHON_PATHS)
        for i in extract_symbols(text, "python").imports
    ]
    assert found == [["src/pkg/core.py"], ["src/pkg/sub/tools.py"]]


JS_PATHS = frozenset(
    {
        "web/src/app.ts",
        "web/src/util.ts",
        "web/src/view.tsx",
        "web/src/legacy.js",
        "web/src/lib/index.ts",
        "web/src/data.json",
        "web/shared/math.mjs",
        "web/node_modules/react/index.js",
    }
)


@pytest.mark.parametrize(
    ("specifier", "expected"),
    [
        ("./util", ["web/src/util.ts"]),
        ("./view", ["web/src/view.tsx"]),
        ("./legacy", ["web/src/legacy.js"]),
        ("./lib", ["web/src/lib/index.ts"]),
        ("./data.json", ["web/src/data.json"]),
        ("./util.js", ["web/src/util.ts"]),  # TypeScript's ES modules name the output
        ("../shared/math", ["web/shared/math.mjs"]),
        ("../../../outside", []),
        ("./missing", []),
        ("react", []),
        ("@scope/pkg", []),
    ],
)
def test_resolve_javascript(specifier: str, expected: list[str]) -> None:
    imported = ImportRef(specifier, "x", "x", 0, 1)
    for language in ("typescript", "tsx", "javascript"):
        assert resolve_import(imported, "web/src/app.ts", language, JS_PATHS) == expected


GO_PATHS = frozenset(
    {
        "go.mod",
        "cmd/server/main.go",
        "internal/store/db.go",
        "internal/store/cache.go",
        "internal/store/db_test.go",
        "pkg/store/other.go",
        "internal/fmt/fmt.go",
    }
)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (
            "github.com/acme/app/internal/store",
            ["internal/store/cache.go", "internal/store/db.go"],
        ),
        ("github.com/acme/app/pkg/store", ["pkg/store/other.go"]),
        # Only the last element matches: both `store` folders, neither nearer.
        (
            "example.com/x/store",
            ["internal/store/cache.go", "internal/store/db.go", "pkg/store/other.go"],
        ),
        ("fmt", []),  # the standard library, whatever the local folders
        ("github.com/other/lib", []),
    ],
)
def test_resolve_go(path: str, expected: list[str]) -> None:
    imported = ImportRef(path, None, path.rsplit("/", 1)[-1], 0, 1)
    assert sorted(resolve_import(imported, "cmd/server/main.go", "go", GO_PATHS)) == expected


def test_a_go_packages_files_come_in_path_order_whatever_order_the_paths_are_given() -> None:
    # A set's order moves with the hash seed: a budget filled file by file (the imported
    # definitions baseline) gave a different recall on each run.
    imported = ImportRef("example.com/x/store", None, "store", 0, 1)
    for paths in (sorted(GO_PATHS), sorted(GO_PATHS, reverse=True)):
        assert resolve_import(imported, "cmd/server/main.go", "go", paths) == [
            "internal/store/cache.go", "internal/store/db.go", "pkg/store/other.go"]


RUST_PATHS = frozenset(
    {
        "Cargo.toml",
        "src/lib.rs",
        "src/net.rs",
        "src/net/http.rs",
        "src/net/tcp/mod.rs",
        "src/util/mod.rs",
        "src/util/text.rs",
        "tools/gen/src/main.rs",
        "tools/gen/src/parse.rs",
    }
)


@pytest.mark.parametrize(
    ("importing", "imported", "expected"),
    [
        ("src/lib.rs", ref("crate::net::http", "Client"), ["src/net/http.rs"]),
        ("src/lib.rs", ref("crate::net", "tcp"), ["src/net/tcp/mod.rs"]),
        # `Socket` is an item of src/net.rs, not a module.
        ("src/util/text.rs", ref("crate::net", "Socket"), ["src/net.rs"]),
        ("src/util/text.rs", ref("crate", "util"), ["src/util/mod.rs"]),
        # An item of the crate root.
        ("src/net/http.rs", ref("crate", "Config"), ["src/lib.rs"]),
        # super:: from a file module and from a mod.rs.
        ("src/net/http.rs", ref("super", "Socket"), ["src/net.rs"]),
        ("src/util/text.rs", ref("super", "helpers"), ["src/util/mod.rs"]),
        ("src/net/tcp/mod.rs", ref("super::http", "Client"), ["src/net/http.rs"]),
        # `mod http;` inside src/net.rs, and `self::` alike.
        ("src/net.rs", ref("self", "http"), ["src/net/http.rs"]),
        ("src/util/mod.rs", ref("self::text", "*"), ["src/util/text.rs"]),
        # A second crate: its own src/ is its root.
        ("tools/gen/src/main.rs", ref("crate::parse", "Parser"), ["tools/gen/src/parse.rs"]),
        # 2018's bare path to a child module, and crates from elsewhere.
        ("src/lib.rs", ref("net::http", "Client"), ["src/net/http.rs"]),
        ("src/lib.rs", ref("std::collections", "HashMap"), []),
        ("src/lib.rs", ref("serde", "Serialize"), []),
    ],
)
def test_resolve_rust(importing: str, imported: ImportRef, expected: list[str]) -> None:
    assert resolve_import(imported, importing, "rust", RUST_PATHS) == expected


def test_a_rust_module_a_path_attribute_places_is_the_file_it_names() -> None:
    code = ('#[cfg(unix)]\n#[path = "../sys/unix.rs"]\n/// The platform.\nmod imp;\n'
            "mod text;\n")
    imported = [ref for ref in extract_symbols(code, "rust").imports]
    assert [(r.module, r.name, r.alias, r.line) for r in imported] == [
        ("../sys/unix.rs", None, "imp", 4), ("self", "text", "text", 5)]
    paths = {*RUST_PATHS, "src/sys/unix.rs", "src/sys/fd.rs"}
    assert resolve_import(imported[0], "src/util/mod.rs", "rust", paths) == ["src/sys/unix.rs"]
    # Other modules reach it by the declaring module's path; its own modules lie beside it.
    placed = rust_modules_placed([("src/util/mod.rs", "../sys/unix.rs", "imp"),
                                  ("web/load.ts", "../pkg/wasm.rs", "wasm")])
    assert placed == {"src/util/imp": ("src/sys/unix.rs",)}
    project = Project(rust_modules=placed)
    for module, expected in (("crate::util::imp", "src/sys/unix.rs"),
                             ("crate::util::imp::fd", "src/sys/fd.rs")):
        assert resolve_import(ref(module, "Fd"), "src/lib.rs", "rust", paths, project) == [expected]


def test_resolve_rust_without_a_src_folder_matches_by_suffix() -> None:
    paths = {"crate_a/net/http.rs", "crate_a/main.rs"}
    imported = ref("crate::net::http", "Client")
    assert resolve_import(imported, "crate_a/main.rs", "rust", paths) == ["crate_a/net/http.rs"]


JVM_PATHS = frozenset(
    {
        "app/src/main/java/com/acme/Client.java",
        "app/src/main/java/com/acme/Names.java",
        "app/src/main/java/com/acme/util/Strings.java",
        "app/src/main/java/com/acme/util/Lists.kt",
        "app/src/main/java/com/acme/util/README.md",
        "app/src/main/kotlin/com/acme/model/Models.kt",
        "other/src/main/java/com/acme/Client.java",
    }
)


@pytest.mark.parametrize(
    ("imported", "expected"),
    [
        (ref("com.acme", "Client"), ["app/src/main/java/com/acme/Client.java"]),
        (ref("com.acme.util", "Lists"), ["app/src/main/java/com/acme/util/Lists.kt"]),
        # `import static com.acme.Names.first`: the class's file.
        (ref("com.acme.Names", "first"), ["app/src/main/java/com/acme/Names.java"]),
        (
            ref("com.acme.util", "*"),
            [
                "app/src/main/java/com/acme/util/Lists.kt",
                "app/src/main/java/com/acme/util/Strings.java",
            ],
        ),
        # Kotlin declares many things per file: the package's files.
        (ref("com.acme.model", "User"), ["app/src/main/kotlin/com/acme/model/Models.kt"]),
        (ref("java.util", "List"), []),
    ],
)
def test_resolve_java_and_kotlin(imported: ImportRef, expected: list[str]) -> None:
    importing = "app/src/main/java/com/acme/App.java"
    for language in ("java", "kotlin"):
        assert sorted(resolve_import(imported, importing, language, JVM_PATHS)) == expected


def test_resolve_other_languages_finds_nothing() -> None:
    assert resolve_import(ref("stdio"), "main.c", "c", {"stdio.h"}) == []


# --- identifiers ---------------------------------------------------------------------------


def test_identifiers_keep_chains_whole_and_in_parts() -> None:
    text = "result = client.get(path)\nx1 = 1.5e3 + self.a.b\n"
    assert identifiers(text) == [
        ("result", 1),
        ("client.get", 1),
        ("client", 1),
        ("get", 1),
        ("path", 1),
        ("x1", 2),
        ("self.a.b", 2),
        ("self", 2),
        ("a", 2),
        ("b", 2),
    ]


def test_a_javascript_name_may_hold_a_dollar_sign() -> None:
    # zod's `core.$ZodString.init(`, RxJS's `source$`: a `$` is part of the name.
    text = "core.$ZodString.init(inst, def);\nconst value$ = source$.pipe();\n"
    assert identifiers(text)[:4] == [
        ("core.$ZodString.init", 1), ("core", 1), ("$ZodString", 1), ("init", 1)]
    assert ("value$", 2) in identifiers(text) and ("source$.pipe", 2) in identifiers(text)
    code = 'import * as core from "./core/index.js";\n' + text
    uses = extract_symbols(code, "typescript").member_uses
    assert uses[("core", "$ZodString")] == 1


def test_a_multi_line_import_binds_on_all_its_lines() -> None:
    code = "from pkg.helpers import (\n    slugify,\n    tidy as t,\n)\nimport os\n"
    own = extract_symbols(code, "python")
    assert [(ref.alias, list(ref.lines)) for ref in own.imports] == [
        ("slugify", [1, 2, 3, 4]), ("t", [1, 2, 3, 4]), ("os", [5])]


def test_a_node_longer_than_a_chunk_of_the_read_back_source_reads_whole() -> None:
    # A parsed file's text is read back in 4 KiB chunks: a longer node's text spans several.
    names = [f"item_number_{i}" for i in range(800)]  # some 12 KiB in one `use` tree
    text = "use crate::items::{" + ", ".join(names) + "};\n"
    imports = extract_symbols(text, "rust").imports
    assert [ref.alias for ref in imports] == names
