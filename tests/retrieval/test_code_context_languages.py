"""Code-at-cursor in Rust, Go and TypeScript: small repositories shaped like real ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from embedstore.cli.app import app
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval import code_context
from embedstore.retrieval.code_context import context_for_code
from embedstore.store.collection import Collection
from embedstore.store.store import Store
from tests.chunking.test_symbols import DOCUMENTED_OVERLOADS
from tests.evaluation.test_completion_multilang import COMMONJS
from tests.fakes import FAKE_SPEC, FakeEncoder
from tests.retrieval.test_code_context import indexed


def context(collection: Collection, code: str, path: str, max_tokens: int = 2000) -> str:
    return context_for_code(collection, code, path=path, max_tokens=max_tokens,
                            similar=False).text


# --- Rust -------------------------------------------------------------------------------------

RUST_POINT = """//! Points on a plane.

/// A point.
#[derive(Clone, Debug)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

impl Point {
    /// The point at (x, y).
    #[inline]
    pub fn new(x: i32, y: i32) -> Self {
        Point { x, y }
    }

    pub fn shifted(&self, dx: i32) -> Point {
        Point { x: self.x + dx, y: self.y }
    }
}

impl std::fmt::Display for Point {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}
"""
RUST_SHAPE = """/// Something with an area.
pub trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> &str;
}

#[derive(Clone, Debug)]
pub struct Square {
    pub side: f64,
}

impl Square {
    pub fn new(side: f64) -> Self {
        Square { side }
    }
}
"""
RUST_LIB = "pub mod point;\npub mod shape;\n"


def rust_crate(tmp_path: Path) -> Collection:
    return indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "plane"\nversion = "0.1.0"\n',
        "src/lib.rs": RUST_LIB,
        "src/point.rs": RUST_POINT,
        "src/shape.rs": RUST_SHAPE,
    })


def test_a_derive_line_in_the_edited_file_does_not_hide_a_struct(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # The edited file has a derive line of its own, as most Rust files do: the first line of
    # Point's definition (`#[derive(Clone, Debug)]`) is in the prompt, Point is not.
    code = ("use crate::point::Point;\n\n#[derive(Clone, Debug)]\npub struct Segment {\n"
            "    pub start: Point,\n}\n\nfn origin() -> Point {\n    ")
    text = context(rust_crate(tmp_path), code, "src/segment.rs")
    assert "pub struct Point {" in text


def test_a_mod_line_is_no_candidate(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    # lib.rs's `pub mod segment;` is like the edited file's last lines (it names the file's
    # module) and holds nothing the next line can call: it would only take budget.
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "plane"\nversion = "0.1.0"\n',
        "src/lib.rs": RUST_LIB + "pub mod segment;\n",
        "src/point.rs": RUST_POINT,
        "src/shape.rs": RUST_SHAPE,
    })
    code = ("use crate::point::Point;\n\n/// A segment.\npub struct Segment {\n"
            "    pub start: Point,\n}\n\npub fn segment(start: Point) -> Segment {\n"
            "    let segment = Segment { start };\n    ")
    text = context_for_code(collection, code, path="src/segment.rs", max_tokens=2000).text
    assert "pub struct Point {" in text
    assert "pub mod" not in text


RUST_POINT_TESTS = """use super::*;

#[test]
fn shifted_moves_right() {
    let p = Point::new(1, 2);
    assert_eq!(p.shifted(3).x, 4);
}
"""
RUST_LIB_TEST = """pub mod point;

#[cfg(test)]
#[test]
fn origin_shifts_right() {
    let p = point::Point::new(0, 0);
    assert_eq!(p.shifted(1).x, 1);
}
"""


def test_rust_tests_are_offered_to_tests_alone(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    # A `tests.rs` module (`#[cfg(test)] mod tests;`) and a `#[test]` function of lib.rs are
    # test code, though neither's path nor name says so: code that is not a test never
    # calls them, however like them it looks.
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "plane"\nversion = "0.1.0"\n',
        "src/lib.rs": RUST_LIB_TEST,
        "src/point.rs": RUST_POINT + "\n#[cfg(test)]\nmod tests;\n",
        "src/point/tests.rs": RUST_POINT_TESTS,
    })
    code = ("use crate::point::Point;\n\npub fn moved() -> i32 {\n"
            "    let p = Point::new(1, 2);\n    assert_eq!(p.shifted(3).x, 4);\n"
            "    p.shifted(1).x\n}\n\npub fn far() -> i32 {\n    ")

    def answer(path: str) -> str:
        return context_for_code(collection, code, path=path, max_tokens=2000).text

    text = answer("src/segment.rs")
    assert "pub fn shifted(&self, dx: i32) -> Point {" in text
    assert "fn shifted_moves_right()" not in text and "fn origin_shifts_right()" not in text
    assert "fn shifted_moves_right()" in answer("tests/segment.rs")
    code += ("1\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n"
             "    fn far_is_one() {\n        ")
    assert "fn shifted_moves_right()" in answer("src/segment.rs")  # in its test module


def test_a_rust_types_methods_come_with_it(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    # Two types have a `new`: the name alone is not unique, the import of Point decides.
    code = "use crate::point::Point;\n\nfn origin() -> Point {\n    let p = Point::new("
    text = context(rust_crate(tmp_path), code, "src/segment.rs", max_tokens=400)
    assert "pub fn new(x: i32, y: i32) -> Self {" in text
    assert "pub fn shifted(&self, dx: i32) -> Point {" in text
    assert "pub fn new(side: f64)" not in text


def test_a_rust_outline_shows_a_signature_from_its_name_not_its_attributes(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # clap's builder: nearly every method has `#[must_use]` or `#[inline]` above it, which
    # says nothing of how to call it; a budget spent on them lists half as many methods.
    methods = "".join(f"    #[must_use]\n    #[inline]\n    pub fn step_{i}(mut self) -> Self {{\n"
                      "        self\n    }\n\n" for i in range(12))
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "cli"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod builder;\n",
        "src/builder.rs": f"#[derive(Debug, Clone)]\npub struct Builder {{\n    n: u32,\n}}\n\n"
                          f"impl Builder {{\n{methods}}}\n",
    })
    code = "use crate::builder::Builder;\n\nfn build(b: Builder) -> Builder {\n    b."
    text = context(collection, code, "src/main.rs", max_tokens=100)
    assert "pub fn step_10(mut self) -> Self {" in text
    assert "#[must_use]" not in text and "#[inline]" not in text


def test_a_doc_comment_above_a_signature_brings_none_of_its_body(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # chrono's Parsed: a documented setter per field. Rust's `///` stands above the signature;
    # the lines below it are the body, which a budget for signatures cannot also hold.
    methods = "".join(f"    /// Sets field {i}.\n    pub fn set_{i}(&mut self, v: i64) -> bool {{\n"
                      "        let checked = v.abs();\n        checked > 0\n    }\n\n"
                      for i in range(12))
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "dates"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod parsed;\n",
        "src/parsed.rs": f"pub struct Parsed {{\n    n: i64,\n}}\n\nimpl Parsed {{\n{methods}}}\n",
    })
    code = ("use crate::parsed::Parsed;\n\nfn parse(p: &mut Parsed) -> bool {\n"
            "    p.set_0(1);\n    ")
    text = context(collection, code, "src/parse.rs", max_tokens=100)
    assert "let checked" not in text
    assert all(f"pub fn set_{i}(&mut self, v: i64) -> bool {{" in text for i in range(9))


def rust_struct_with(name: str, *methods: str) -> str:
    """A Rust struct ``name`` and an `impl` of `&self` methods ``methods``."""
    body = "".join(f"    pub fn {m}(&self) -> u32 {{\n        self.n\n    }}\n\n" for m in methods)
    return f"pub struct {name} {{\n    n: u32,\n}}\n\nimpl {name} {{\n{body}}}\n"


def test_a_call_through_a_held_value_speaks_for_its_own_types_member_alone(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # chrono: `d.hour()` with `d: &NaiveDateTime` lifted NaiveTime's and DateTime's `hour`
    # too, to the head of their outlines, over what else they hold.
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "dates"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod time;\npub mod stamp;\n",
        "src/time.rs": rust_struct_with("Time", "hour", "minute", "second"),
        "src/stamp.rs": rust_struct_with("Stamp", "year", "month", "day", "hour", "minute"),
    })
    code = ("use crate::stamp::Stamp;\nuse crate::time::Time;\n\n"
            "pub fn show(t: &Time) -> u32 {\n    let h = t.hour();\n    let m = t.minute();\n"
            "    ")
    text = context(collection, code, "src/show.rs", max_tokens=50)
    assert "pub fn second(&self) -> u32 {" in text and "pub fn year(&self) -> u32 {" in text
    assert text.count("pub fn hour(&self) -> u32 {") == 1


def test_a_field_of_self_holds_the_type_its_struct_declares(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # indexmap's IndexSet wraps an IndexMap (`map: IndexMap<T, (), S>`): its methods call
    # `self.map.`'s, a name of the code holding no value of its own.
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "maps"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod table;\npub mod entry;\n",
        "src/table.rs": rust_struct_with("Map", *(f"step_{i}" for i in range(8)), "reserve_slot"),
        "src/entry.rs": rust_struct_with("Entry", "key", "resize", "remove"),
    })
    code = ("use crate::entry::Entry;\nuse crate::table::Map;\n\npub struct Set<T> {\n"
            "    pub(crate) map: Map,\n    stops: Vec<T>,\n}\n\nimpl<T> Set<T> {\n"
            "    pub fn grow(&mut self, e: &Entry) -> u32 {\n        let k = e.key();\n"
            "        self.map.res")
    text = context(collection, code, "src/set.rs", max_tokens=30)
    assert "pub fn reserve_slot(&self) -> u32 {" in text
    assert "pub fn resize(&self) -> u32 {" not in text  # `res` of Entry, no field's type


def test_of_a_held_values_methods_those_the_collection_calls_most_come_first(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # chrono's NaiveDate: sixty methods in source order; `d.year()` is what code calls.
    methods = "".join(f"    pub fn field_{i}(&self) -> u32 {{\n        0\n    }}\n\n"
                      for i in range(20))
    callers = {f"src/use{i}.rs": f"pub fn f{i}(d: &crate::date::Date) -> u32 {{\n"
                                 "    d.year_of_era()\n}\n" for i in range(5)}
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "dates"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod date;\n" + "".join(f"pub mod use{i};\n" for i in range(5)),
        "src/date.rs": "pub struct Date {\n    n: u32,\n}\n\nimpl Date {\n" + methods
                       + "    pub fn year_of_era(&self) -> u32 {\n        0\n    }\n}\n",
        **callers,
    })
    code = "use crate::date::Date;\n\npub fn show(d: &Date) -> u32 {\n    "
    text = context(collection, code, "src/show.rs", max_tokens=60)
    assert "pub fn year_of_era(&self) -> u32 {" in text


def test_a_crates_examples_use_it_by_name_past_its_example_tables(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # clap's published Cargo.toml lists its examples as `[[example]]` tables, each with a
    # `name`: the crate that examples/ `use` is still `clap`.
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "clap"\n\n[lib]\nbench = false\n\n'
                      '[[example]]\nname = "demo"\npath = "examples/demo.rs"\n',
        "src/lib.rs": "pub mod builder;\npub use crate::builder::Command;\n",
        "src/builder/mod.rs": "mod command;\npub use command::Command;\n",
        "src/builder/command.rs": "pub struct Command {\n    name: String,\n}\n\nimpl Command {\n"
                                  "    pub fn new(name: &str) -> Self {\n"
                                  "        Command { name: name.to_string() }\n    }\n}\n",
    })
    code = "use clap::Command;\n\nfn main() {\n    let cmd = "
    text = context(collection, code, "examples/demo.rs")
    assert "pub fn new(name: &str) -> Self {" in text


def test_a_traits_methods_are_its_members(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    code = "use crate::shape::Shape;\n\nfn describe(s: &dyn Shape) -> f64 {\n    s."
    candidates = code_context._structural(rust_crate(tmp_path), code, "", "src/report.rs", "rust")
    members = {c.row.name: [m.name for m in c.members] for c in candidates.values()}
    assert members["Shape"] == ["area", "name"]


def test_a_rust_path_into_a_type_is_a_use_of_its_member(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # `Date::add_days(` just above the cursor: of Date's many items that one comes first, as
    # `date.add_days(` would in Python (Span has an `add_days` too: the name alone says
    # nothing).
    items = "".join(f"    /// Day {i}.\n    pub fn day_{i}(&self) -> u32 {{\n        {i}\n"
                    "    }\n\n" for i in range(30))
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "cal"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod date;\npub mod span;\n",
        "src/span.rs": "pub struct Span {\n    days: i32,\n}\n\nimpl Span {\n"
                       "    pub fn add_days(&self, n: i32) -> Span {\n"
                       "        Span { days: self.days + n }\n    }\n}\n",
        "src/date.rs": "/// A day.\npub struct Date {\n    days: i32,\n}\n\nimpl Date {\n" + items
                       + "    pub fn add_days(&self, n: i32) -> Date {\n"
                         "        Date { days: self.days + n }\n    }\n}\n",
    })
    code = ("use crate::date::Date;\n\nfn next_week(d: &Date) -> Date {\n"
            "    let d = Date::add_days(d, 7);\n    ")
    text = context(collection, code, "src/week.rs", max_tokens=120)
    assert "pub fn add_days(&self, n: i32) -> Date {" in text


# --- Go ---------------------------------------------------------------------------------------

GO_SERVER = """package server

// Server answers requests.
type Server struct {
	addr string
}

// New makes a server listening on addr.
func New(addr string) *Server {
	return &Server{addr: addr}
}
"""
GO_HANDLERS = """package server

import "net/http"

// Handle answers one request.
func (s *Server) Handle(w http.ResponseWriter, r *http.Request) error {
	return nil
}

func (s *Server) Close() error {
	return nil
}
"""
GO_CLIENT = """package client

// Handle is a client's own, not the server's.
func (c *Client) Handle() error {
	return nil
}

type Client struct{}
"""


def test_a_go_types_methods_come_with_it_from_any_file_of_its_package(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, {
        "go.mod": "module example.com/app\n\ngo 1.21\n",
        "server/server.go": GO_SERVER,
        "server/handlers.go": GO_HANDLERS,
        "client/client.go": GO_CLIENT,
    })
    code = ('package main\n\nimport "example.com/app/server"\n\nfunc main() {\n'
            '\ts := server.New(":8080")\n\ts.')
    text = context(collection, code, "cmd/main.go")
    assert "func (s *Server) Handle(w http.ResponseWriter, r *http.Request) error {" in text
    assert "func (s *Server) Close() error {" in text
    assert "func (c *Client) Handle()" not in text


COBRA_COMMAND = """package cobra

// Command is one command of a program.
type Command struct {
	Use string
}

// AddCommand adds subcommands.
func (c *Command) AddCommand(cmds ...*Command) {
}

func hasSeeAlso(cmd *Command) bool {
	return false
}
"""
COBRA_TEST = """package cobra

func hasSeeAlso(cmd *Command) bool {
	return true
}
"""
COBRA_DOC_UTIL = """package doc

import "github.com/spf13/cobra"

func hasSeeAlso(cmd *cobra.Command) bool {
	return true
}
"""


def cobra(tmp_path: Path) -> Collection:
    return indexed(tmp_path, {
        "go.mod": "module github.com/spf13/cobra\n\ngo 1.15\n\n"
                  "replace github.com/acme/strings => ./internal/strs\n",
        "command.go": COBRA_COMMAND,
        "command_test.go": COBRA_TEST,
        "doc/util.go": COBRA_DOC_UTIL,
        "internal/strs/strs.go": "package strings\n\nfunc Reverse(s string) string {\n"
                                    "\treturn s\n}\n",
    })


def test_go_resolves_the_modules_root_package_by_its_go_mod(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    code = ('package doc\n\nimport (\n\t"github.com/spf13/cobra"\n\t"github.com/acme/strings"\n)'
            "\n\nfunc GenMan(cmd *cobra.Command) string {\n\treturn ")
    text = context(cobra(tmp_path), code, "doc/man_docs.go")
    assert "type Command struct {" in text
    assert "func Reverse(s string) string {" in text  # through go.mod's `replace`


def test_a_go_packages_files_share_their_names_without_an_import(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # hasSeeAlso is defined thrice: in this package, in its test, and in package doc.
    code = "package cobra\n\nfunc (c *Command) Usage() bool {\n\treturn hasSeeAlso("
    text = context(cobra(tmp_path), code, "args.go")
    assert "command.go" in text and "func hasSeeAlso(cmd *Command) bool {" in text
    assert "command_test.go" not in text and "doc/util.go" not in text
    # A test sees the package's tests too.
    test_text = context(cobra(tmp_path / "t"), code, "args_test.go")
    assert "command_test.go" in test_text


def test_the_blank_identifier_is_no_definition(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    # `var _ Flag = (*BoolFlag)(nil)` asserts an interface; `_ = app.Run(args)` above the
    # cursor uses no name of the package's.
    collection = indexed(tmp_path, {
        "go.mod": "module example.com/cli\n",
        "flag.go": "package cli\n\ntype Flag interface {\n\tName() string\n}\n\n"
                   "var _ Flag = (*BoolFlag)(nil)\n\n// BoolFlag is a flag of type bool.\n"
                   "type BoolFlag struct {\n\tName string\n}\n",
    })
    code = "package cli\n\nfunc main() {\n\tapp := NewApp()\n\t_ = app.Run(nil)\n\t"
    text = context(collection, code, "main.go")
    assert "type BoolFlag struct {" in text
    assert "var _ Flag" not in text


def go_helpers(prefix: str) -> str:
    """Twelve small Go functions, none of them the answer: what a package holds besides."""
    return "".join(f"// {prefix}{i} helps.\nfunc {prefix}{i}(n int) int {{\n\treturn n\n}}\n\n"
                   for i in range(12))


def test_a_go_test_files_package_names_from_the_file_it_tests_come_first(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # Four siblings; `store_test.go` tests `store.go`, whose API its tests call next.
    helpers = go_helpers("Helper")
    collection = indexed(tmp_path, {
        "go.mod": "module example.com/kv\n\ngo 1.20\n",
        "codec.go": "package kv\n\n" + helpers,
        "store.go": "package kv\n\n// NewStore makes an empty store.\n"
                    "func NewStore(path string) *Store {\n\treturn &Store{}\n}\n\n"
                    "type Store struct{}\n",
        "util.go": "package kv\n\n" + go_helpers("Util"),
    })
    code = 'package kv\n\nimport "testing"\n\nfunc TestPut(t *testing.T) {\n\ts := '
    text = context(collection, code, "store_test.go", max_tokens=60)
    assert "func NewStore(path string) *Store {" in text


def test_of_a_go_packages_functions_those_its_files_call_most_come_first(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # Twelve sibling functions; the package's other files call `mapForm` again and again.
    helpers = go_helpers("Helper")
    calls = "".join(f"\tmapForm(v{i})\n" for i in range(4))
    collection = indexed(tmp_path, {
        "go.mod": "module example.com/binding\n\ngo 1.20\n",
        "aaa_helpers.go": "package binding\n\n" + helpers,
        "form_mapping.go": "package binding\n\n// mapForm maps a form onto a struct.\n"
                           "func mapForm(ptr any) error {\n\treturn nil\n}\n",
        "query.go": f"package binding\n\nfunc bindQuery() {{\n{calls}}}\n",
        "header.go": f"package binding\n\nfunc bindHeader() {{\n{calls}}}\n",
    })
    code = "package binding\n\nfunc bindForm(req any) error {\n\treturn "
    text = context(collection, code, "form.go", max_tokens=40)
    assert "func mapForm(ptr any) error {" in text


def test_the_fitted_order_reaches_past_the_first_candidates_by_evidence(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # A package of 200 functions its files call, and one constant they do not,
    # `tagSeparator`, which the line after `tags := strings.Split(tag, ` uses. By
    # the evidence alone it is the package's last, past the 150 that packing outlines; the
    # fitted order (candidate_ranker.py) weighs the words it shares with the last lines.
    helpers = "".join(f"func check{i}(n int) int {{\n\treturn n\n}}\n\n" for i in range(200))
    calls = "".join(f"\tcheck{i}(1)\n" for i in range(200))
    collection = indexed(tmp_path, {
        "go.mod": "module example.com/validator\n\ngo 1.20\n",
        "checks.go": "package validator\n\n" + helpers,
        "run.go": f"package validator\n\nfunc run() {{\n{calls}}}\n",
        "tags.go": 'package validator\n\nconst tagSeparator = ","\n',
    })
    code = ('package validator\n\nimport "strings"\n\nfunc parseTags(tag string) []string {\n'
            "\ttags := strings.Split(tag, ")
    text = context(collection, code, "cache.go", max_tokens=2048)
    assert 'const tagSeparator = ","' in text


def test_go_methods_the_last_lines_already_call_give_way_to_a_function_they_do_not(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # BurntSushi/toml's shape: six types of the package each have a String method, and the
    # code just called one. The prompt shows how to call String, and six definitions bear
    # that name; the fitted order (candidate_ranker.py) puts the package's function first.
    types = "".join(f"type kind{i} int\n\n"
                    f"func (k kind{i}) String() string {{\n\treturn \"\"\n}}\n\n"
                    for i in range(6))
    collection = indexed(tmp_path, {
        "go.mod": "module github.com/BurntSushi/toml\n\ngo 1.18\n",
        "kinds.go": "package toml\n\n" + types,
        "key.go": "package toml\n\n// parseKey splits a dotted key.\n"
                  "func parseKey(s string) []string {\n\treturn nil\n}\n",
    })
    code = ("package toml\n\nfunc (p *parser) keyOf(k kind0) []string {\n"
            "\tname := k.String()\n\tp.trace(name)\n\treturn ")
    text = context(collection, code, "parse.go", max_tokens=20)
    assert "func parseKey(s string) []string {" in text


# --- TypeScript -------------------------------------------------------------------------------

TS_FILES = {
    "tsconfig.json": """{
  // Paths the app imports by alias.
  "compilerOptions": {
    "baseUrl": ".",
    "paths": {
      "@lib/*": ["src/*"],  /* one alias */
    },
  },
}
""",
    "src/index.ts": "export * from './core';\nexport { helper as aid } from './util';\n",
    "src/core.ts": "/** Makes a store. */\nexport function createStore(name: string): Store {\n"
                   "  return new Store(name);\n}\n\nexport class Store {\n"
                   "  constructor(public name: string) {}\n  get(key: string): string {\n"
                   "    return key;\n  }\n}\n",
    "src/util.ts": "export function helper(value: number): number {\n  return value;\n}\n",
    "src/other.ts": "export function helper(text: string): string {\n  return text;\n}\n",
}


def test_commonjs_exports_and_prototype_methods_come_to_the_code_that_requires_them(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # express's shape: `var compileETag = require('./utils').compileETag` then a call, and
    # a constructor whose methods are assigned to its prototype, made with `new`.
    collection = indexed(tmp_path, COMMONJS)
    head = "".join(COMMONJS["app.js"].splitlines(keepends=True)[:5])
    text = context(collection, head + "var etag = ", "app.js")
    assert "exports.compileETag = function (val) {" in text
    text = context(collection, head + "function route() {\n  var layer = new Layer('/');\n"
                   "  layer.", "app.js")
    assert "Layer.prototype.match = function match(path) {" in text


def test_typescript_follows_barrels_for_named_imports(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    code = "import { createStore, aid } from '../src';\n\nconst store = "
    text = context(indexed(tmp_path, TS_FILES), code, "app/main.ts")
    assert "export function createStore(name: string): Store {" in text
    assert "export function helper(value: number): number {" in text
    assert "helper(text: string)" not in text


def test_typescript_follows_barrels_for_namespace_imports(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    code = "import * as lib from '../src';\n\nconst store = lib."
    text = context(indexed(tmp_path, TS_FILES), code, "app/main.ts")
    assert "export function createStore(name: string): Store {" in text


def test_a_typescript_named_import_of_a_barrels_namespace_is_that_module(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # Effect's style: `export * as PubSub from "./PubSub"` in the index, then
    # `import { PubSub } from "./index"` and `PubSub.bounded(`.
    files = {**TS_FILES, "src/index.ts": "export * as Core from './core';\n"}
    code = "import { Core } from '../src';\n\nconst store = Core."
    text = context(indexed(tmp_path, files), code, "app/main.ts")
    assert "export function createStore(name: string): Store {" in text


def test_a_typescript_enums_members_are_its_members(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # mobx's shape: `MakeResult.Cancel` comes from an enum imported beside forty helpers.
    # Its members are constants of it (as Java's are), listed in its outline, not only
    # found in a body that the forty helpers' bodies leave no room for.
    helpers = "".join(f"export function check{i}(target: object, key: string): boolean {{\n"
                      "  return target !== null && key !== ''\n}\n\n" for i in range(40))
    collection = indexed(tmp_path, {
        "src/utils.ts": helpers,
        "src/types.ts": "export const enum MakeResult {\n  Cancel,\n  Break,\n  Continue\n}\n",
    })
    names = ", ".join(f"check{i}" for i in range(40))
    code = (f"import {{ {names} }} from './utils';\nimport {{ MakeResult }} from './types';\n\n"
            "export function make(target: object, key: string) {\n"
            "  if (!check0(target, key)) {\n    return ")
    text = context(collection, code, "src/make.ts")
    assert "export const enum MakeResult {" in text and "  Cancel," in text


def zod_core(count: int) -> str:
    """zod's shape: each schema is an interface and a constructor of the same name."""
    return "".join(
        f"export interface $Zod{i}Def {{\n  type: string;\n}}\n"
        f"export interface $Zod{i} extends $ZodType {{\n  _zod: $Zod{i}Def;\n}}\n"
        f"export const $Zod{i}: $constructor<$Zod{i}> = $constructor(\"$Zod{i}\",\n"
        "  (inst, def) => {\n    $ZodType.init(inst, def);\n  });\n\n" for i in range(count))


def zod_mini(used: int) -> str:
    return ('import * as core from "../core/index.js";\n\n'
            'export const MiniA = core.$constructor("MiniA", (inst, def) => {\n'
            f'  core.$Zod{used}.init(inst, def);\n}});\n'
            'export const MiniB = core.$constructor("MiniB", (inst, def) => {\n')


def test_a_typescript_value_stands_for_a_type_of_its_name(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # `core.$Zod1.init(` calls the constant, which the interface above it would hide.
    collection = indexed(tmp_path, {"src/core/index.ts": 'export * from "./schemas.js";\n',
                                    "src/core/schemas.ts": zod_core(2)})
    text = context(collection, zod_mini(0), "src/mini/schemas.ts")
    assert 'export const $Zod1: $constructor<$Zod1> = $constructor("$Zod1",' in text


def test_a_typescript_module_member_named_with_a_dollar_is_a_use(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # After `core.$Zod30.init(`, the schema beside it comes before the module's first.
    collection = indexed(tmp_path, {"src/core/index.ts": 'export * from "./schemas.js";\n',
                                    "src/core/schemas.ts": zod_core(40)})
    ranked = code_context.ranked_candidates(collection, zod_mini(30),
                                            path="src/mini/schemas.ts", similar=False)
    names = [c.row.name for c in ranked]
    assert names.index("$Zod31") < names.index("$Zod1")


def test_typescript_resolves_tsconfig_paths_and_base_url(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    code = "import { helper } from '@lib/util';\nimport { Store } from 'src/core';\n\nhelper("
    text = context(indexed(tmp_path, TS_FILES), code, "app/main.ts")
    assert "export function helper(value: number): number {" in text  # paths
    assert "export class Store {" in text  # baseUrl


# A pnpm/yarn/npm workspace: packages import each other by name, which a link in
# node_modules (not indexed) resolves to the package's folder; its package.json names a
# built entry (`dist/`, not indexed) that its sources under `src/` build.
MONOREPO = {
    "package.json": '{"name": "acme", "private": true, "workspaces": ["packages/*"]}\n',
    "packages/core/package.json": """{
  "name": "@acme/core",
  "main": "dist/index.js",
  "exports": {
    ".": {"types": "./dist/index.d.ts", "import": "./dist/esm/index.mjs"},
    "./utils": "./dist/utils.js"
  }
}
""",
    "packages/core/src/index.ts": "export * from './client'\n",
    "packages/core/src/client.ts": (
        "export class QueryClient {\n"
        "  fetchQuery(key: string): Promise<unknown> {\n    return Promise.resolve(key)\n  }\n}\n"
    ),
    "packages/core/src/utils.ts": (
        "export function hashKey(key: string): string {\n  return JSON.stringify(key)\n}\n"
    ),
    # Namesakes in another package: a name defined once would be found without the import.
    "packages/legacy/src/hash.ts": (
        "export function hashKey(key: number): string {\n  return String(key)\n}\n"
    ),
    "packages/legacy/src/client.ts": (
        "export class QueryClient {\n  fetch(id: number): unknown {\n    return id\n  }\n}\n"
    ),
}


def test_typescript_resolves_a_workspace_package_by_its_name(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, MONOREPO)
    code = ("import * as core from '@acme/core'\n\n"
            "export function useQuery(key: string) {\n  const client = new core.")
    text = context(collection, code, "packages/react/src/useQuery.ts")
    assert "export class QueryClient {" in text  # through the package's entry and its barrel
    code = "import { hashKey } from '@acme/core/utils'\n\nconst key = "
    text = context(collection, code, "packages/react/src/useQuery.ts")
    assert "export function hashKey(key: string): string {" in text  # a subpath export
    assert "hashKey(key: number)" not in text  # not the other package's namesake


def test_context_at_a_line_of_a_monorepo_with_the_default_model(tmp_path: Path) -> None:
    # As a user runs it: the real default model, the CLI, a file on disk.
    root = tmp_path / "acme"
    for rel, text in {**MONOREPO, "packages/react/src/useQuery.ts": (
            "import * as core from '@acme/core'\n\n"
            "export function useQuery(key: string) {\n"
            "  const client = new core.QueryClient()\n"
            "  return client.fetchQuery(key)\n}\n")}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    store = tmp_path / "store"
    runner = CliRunner()
    done = runner.invoke(app, ["index", str(root), "--store", str(store)])
    assert done.exit_code == 0, done.stderr
    at = f"{root / 'packages/react/src/useQuery.ts'}:4"
    # A budget for one block: the imported package's class comes first.
    done = runner.invoke(app, ["context", "--at", at, "--store", str(store), "--json",
                               "--max-tokens", "40"])
    assert done.exit_code == 0, done.stderr
    assert [b["path"] for b in json.loads(done.stdout)["blocks"]] == [
        "packages/core/src/client.ts"]


# --- Python: a package indexed from inside ----------------------------------------------------


# Project files that map a specifier the code writes to a file: Nx keeps a workspace's
# paths in tsconfig.base.json, which each project's tsconfig.json extends; msw's own files
# import `#core/...` through its package.json `imports`.
PROJECT_MAPPED = {
    "tsconfig-extends": ({
        "tsconfig.base.json": '{"compilerOptions": {"baseUrl": ".", '
                              '"paths": {"@acme/store": ["libs/store/src/index.ts"]}}}',
        "apps/shop/tsconfig.json": '{"extends": "../../tsconfig.base.json"}',
        "libs/store/src/index.ts": "export * from './lib/core';\n",
        "libs/store/src/lib/core.ts": TS_FILES["src/core.ts"],
    }, "@acme/store", "apps/shop/src/main.ts"),
    "subpath-imports": ({
        "package.json": '{"name": "shop", "imports": {"#lib/*": "./src/*.ts"}}',
        "src/core.ts": TS_FILES["src/core.ts"],
    }, "#lib/core", "src/app/main.ts"),
}


@pytest.mark.parametrize("shape", list(PROJECT_MAPPED))
def test_typescript_resolves_what_its_project_files_map(
    tmp_path: Path, fake_encoder: FakeEncoder, shape: str
) -> None:
    files, specifier, path = PROJECT_MAPPED[shape]
    code = f"import {{ createStore }} from '{specifier}';\n\nconst store = "
    text = context(indexed(tmp_path, files), code, path)
    assert "export function createStore(name: string): Store {" in text


def test_a_package_indexed_from_inside_resolves_its_absolute_imports(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # As pip/_internal indexed on its own: the collection's root is the folder `_internal`.
    root = tmp_path / "pip" / "_internal"
    for rel, text in {
        "__init__.py": "",
        "utils/__init__.py": "",
        "utils/misc.py": "def ensure_dir(path: str) -> None:\n    pass\n",
        "cli/__init__.py": "",
        "cli/main.py": "def ensure_dir(path):\n    return path\n",
    }.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    store = Store(tmp_path / "store")
    index_folder(store, root, IndexOptions(name="pip", encoder=FAKE_SPEC))
    code = "from pip._internal.utils.misc import ensure_dir\n\nensure_dir("
    text = context(store.open("pip"), code, "commands/install.py")
    assert "def ensure_dir(path: str) -> None:" in text
    assert "def ensure_dir(path):" not in text


RUST_MODULES = {
    "Cargo.toml": '[package]\nname = "cli"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub use crate::error::Error;\nmod builder;\npub mod error;\nmod parser;\n",
    # `mod.rs` passes its submodules' items on, one by a glob.
    "src/builder/mod.rs": "mod arg;\nmod command;\n\n"
                          "pub use self::command::*;\npub use arg::Arg;\n",
    "src/builder/command.rs": "/// A command.\n#[derive(Debug, Clone)]\npub struct Command {\n"
                              "    name: String,\n}\n\nimpl Command {\n"
                              "    pub fn new(name: &str) -> Self {\n"
                              "        Command { name: name.into() }\n    }\n}\n",
    "src/builder/arg.rs": "#[derive(Debug)]\npub struct Arg {\n    id: String,\n}\n",
    "src/error.rs": "#[derive(Debug)]\npub struct Error {\n    kind: u8,\n}\n",
    # `parser.rs` beside `parser/`: its `mod lexer;` is parser/lexer.rs.
    "src/parser.rs": "mod lexer;\n",
    "src/parser/lexer.rs": "#[derive(Debug)]\npub struct Token {\n    text: String,\n}\n",
}


def test_rust_modules_and_reexports(tmp_path: Path, fake_encoder: FakeEncoder) -> None:
    collection = indexed(tmp_path, RUST_MODULES)
    code = ("use crate::builder::{Arg, Command};\nuse crate::Error;\nuse self::lexer::Token;\n\n"
            "#[derive(Debug)]\nstruct State {\n    token: Token,\n}\n\n"
            "fn parse() -> Result<Command, Error> {\n    let arg: Arg;\n    Command::new(")
    text = context(collection, code, "src/parser.rs", max_tokens=400)
    for wanted in ("pub struct Command {", "pub fn new(name: &str) -> Self {",  # by the glob
                   "pub struct Arg {",  # `pub use arg::Arg`, a path from the module itself
                   "pub struct Error {",  # `pub use crate::error::Error` in lib.rs
                   "pub struct Token {"):  # parser.rs's `mod lexer;`
        assert wanted in text
    # `super::` from a submodule, and a glob import of a module that passes others on.
    code = "use super::*;\n\nfn build() {\n    let c = Command::new("
    assert "pub fn new(name: &str) -> Self {" in context(collection, code, "src/builder/extra.rs")



def test_a_rust_name_a_module_defines_and_passes_on_from_a_glob_gives_both(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # regex's `literal`: the feature's searcher through a glob, a stub without the feature.
    collection = indexed(tmp_path, {
        "src/lib.rs": "mod exec;\nmod literal;\n",
        "src/literal/mod.rs": (
            '#[cfg(feature = "perf")]\npub use self::imp::*;\n\n'
            '#[cfg(feature = "perf")]\nmod imp;\n\n'
            '#[cfg(not(feature = "perf"))]\nmod imp {\n    pub struct Searcher(());\n'
            "    impl Searcher {\n        pub fn empty() -> Self {\n"
            "            Searcher(())\n        }\n    }\n}\n"),
        "src/literal/imp.rs": (
            "pub struct Searcher {\n    lits: Vec<u8>,\n}\n\nimpl Searcher {\n"
            "    pub fn prefixes(lits: Vec<u8>) -> Self {\n        Searcher { lits }\n"
            "    }\n}\n"),
    })
    code = "use crate::literal::Searcher;\n\nfn build(lits: Vec<u8>) -> Searcher {\n    "
    text = context(collection, code, "src/exec.rs")
    assert "pub fn prefixes(lits: Vec<u8>) -> Self {" in text  # the feature's
    assert "pub fn empty() -> Self {" in text  # and the stub's


def test_a_rust_module_named_by_the_code_passes_on_what_it_reexports_by_glob(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # `c::ERROR_DISK_FULL` is errors.rs's: c.rs passes it on with `pub use errors::*`. Its
    # test module's `use crate::fixtures::*` takes names in and passes none on.
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "sys"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod fixtures;\npub mod c;\n",
        "src/c.rs": ("mod errors;\npub use errors::*;\n\npub const INFINITE: u32 = 0;\n\n"
                     "#[cfg(test)]\nmod tests {\n    use crate::fixtures::*;\n}\n"),
        "src/c/errors.rs": ("pub const ERROR_ACCESS_DENIED: u32 = 5;\n"
                            "pub const ERROR_DISK_FULL: u32 = 112;\n"),
        "src/fixtures.rs": "pub fn fixture_for_tests() -> u32 {\n    7\n}\n",
    })
    code = ("use crate::c;\n\npub fn kind(code: u32) -> u32 {\n    match code {\n"
            "        c::ERROR_ACCESS_DENIED => 1,\n        ")
    text = context(collection, code, "src/errors_map.rs")
    assert "pub const ERROR_DISK_FULL: u32 = 112;" in text
    assert "fixture_for_tests" not in text


def test_a_rust_module_a_path_attribute_places_is_that_file(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # std's shape: `#[path = "../unix/os.rs"] pub mod os;` in one platform's module shares
    # another's file, which other modules then reach by the declaring module's path.
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "sys"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod sys;\n",
        "src/sys/mod.rs": "pub mod hermit;\n",
        "src/sys/hermit/mod.rs": '#[cfg(target_os = "hermit")]\n#[path = "../unix/os.rs"]\n'
                                 "pub mod os;\n",
        "src/sys/unix/os.rs": "pub fn getcwd() -> String {\n    String::new()\n}\n",
    })
    code = ('#[path = "../unix/os.rs"]\npub mod os;\n\npub fn home() -> String {\n    os::')
    text = context(collection, code, "src/sys/hermit/mod.rs")
    assert "pub fn getcwd() -> String {" in text
    code = "use crate::sys::hermit::os;\n\npub fn current() -> String {\n    "
    assert "pub fn getcwd() -> String {" in context(collection, code, "src/env.rs")


def test_rust_tests_use_their_crate_by_its_cargo_name(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, {**RUST_MODULES, "Cargo.toml": '[package]\nname = "my-cli"\n'})
    code = "use my_cli::Error;\n\n#[test]\nfn fails() {\n    let e: Error;\n"
    assert "pub struct Error {" in context(collection, code, "tests/errors.rs")


def test_a_package_indexed_from_inside_imports_its_modules_by_its_own_name(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    root = tmp_path / "email"  # as the standard library's email/ indexed on its own
    root.mkdir()
    (root / "__init__.py").write_text("")
    (root / "utils.py").write_text("def formatdate(timeval=None):\n    return ''\n")
    store = Store(tmp_path / "store")
    index_folder(store, root, IndexOptions(name="email", encoder=FAKE_SPEC))
    code = "from email import utils\n\n\ndef stamp():\n    return utils."
    assert "def formatdate(timeval=None):" in context(store.open("email"), code, "message.py")


def test_a_rust_module_bound_whole_gives_its_items(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, {
        **RUST_MODULES,
        "src/config/mod.rs": "/// Settings.\npub struct Config {\n    verbose: bool,\n}\n",
    })
    # `use crate::config;` binds the module, which config/mod.rs is, as error.rs is `error`.
    for module in ("config", "error"):
        code = f"use crate::{module};\n\nfn load() -> {module}::"
        assert "pub struct " in context(collection, code, "src/run.rs")


def rust_helpers() -> str:
    """Twelve small Rust functions, none of them the answer: what a module holds besides."""
    return "".join(f"pub(crate) fn helper{i}(n: u32) -> u32 {{\n    n\n}}\n\n"
                   for i in range(12))


def test_a_modules_functions_beside_the_ones_the_code_calls_through_it_come_first(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # chrono's format/scan.rs: scanners of one kind side by side; parse.rs calls them as
    # `scan::short_month0(s)` and goes on to the next ones.
    scanners = "".join(f"pub(super) fn short_{unit}(s: &str) -> u32 {{\n    0\n}}\n\n"
                       for unit in ("month0", "weekday", "day"))
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "dates"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod format;\n",
        "src/format/mod.rs": "mod parse;\nmod scan;\n",
        "src/format/scan.rs": rust_helpers() + scanners + rust_helpers().replace("helper", "more"),
    })
    code = ("use super::scan;\n\nfn parse(s: &str) -> u32 {\n"
            "    let month = scan::short_month0(s);\n    ")
    text = context(collection, code, "src/format/parse.rs", max_tokens=40)
    assert "pub(super) fn short_weekday(s: &str) -> u32 {" in text
    assert "pub(crate) fn helper0(n: u32) -> u32 {" not in text


def test_a_rust_module_bound_whole_gives_what_it_passes_on_by_name(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # tokio's sync/mpsc/mod.rs defines little itself: `pub use self::bounded::{channel,
    # Sender}` makes bounded.rs's `channel` `mpsc::channel`. A private `use` does not.
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "rt"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod sync;\n",
        "src/sync/mod.rs": "pub mod mpsc;\n",
        "src/sync/mpsc/mod.rs": "mod bounded;\nmod chan;\n"
                                "pub use self::bounded::{channel, Sender};\n"
                                "use self::chan::wake;\n",
        "src/sync/mpsc/bounded.rs": "pub struct Sender {\n    n: usize,\n}\n\n"
                                    "pub fn channel(size: usize) -> Sender {\n"
                                    "    Sender { n: size }\n}\n",
        "src/sync/mpsc/chan.rs": "pub(crate) fn wake(n: usize) -> usize {\n    n\n}\n",
    })
    code = "use crate::sync::mpsc;\n\nfn start() {\n    let tx = mpsc::"
    text = context(collection, code, "src/run.rs")
    assert "pub fn channel(size: usize) -> Sender {" in text
    assert "fn wake(" not in text


def test_a_rust_glob_import_binds_the_modules_its_module_declares(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # syn's shape: lib.rs declares its modules; each module starts with `use super::*;`
    # and calls into a sibling module by its name alone (`verbatim::between(`).
    helpers = rust_helpers()
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "syntax"\nversion = "0.1.0"\n',
        "src/lib.rs": "mod expr;\nmod item;\nmod util;\nmod verbatim;\n",
        "src/util.rs": helpers,
        "src/verbatim.rs": "pub(crate) fn between(begin: usize, end: usize) -> String {\n"
                           "    String::new()\n}\n",
        "src/item.rs": "use super::*;\n\nfn parse_item() {\n    verbatim::between(0, 1);\n}\n",
    })
    code = "use super::*;\n\nfn parse_expr(input: &str) -> String {\n    "
    text = context(collection, code, "src/expr.rs", max_tokens=60)
    assert "pub(crate) fn between(begin: usize, end: usize) -> String {" in text


def test_rust_super_and_crate_paths_reach_their_modules_with_no_use(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # chrono's shape: a module's tests call their parent's helpers by path alone
    # (`super::check_json(`), and the crate's root by `crate::`; no `use` names either.
    helpers = rust_helpers()
    calls = "".join(f"    super::check_json({i});\n    crate::parse_all({i});\n" for i in range(4))
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "dates"\nversion = "0.1.0"\n',
        "src/lib.rs": "mod date;\n\n" + helpers
                      + "pub fn parse_all(n: u32) -> u32 {\n    n\n}\n",
        "src/date/mod.rs": "mod tests;\nmod serde;\n\n" + helpers
                           + "fn check_json(value: u32) -> bool {\n    true\n}\n",
        "src/date/tests.rs": f"#[test]\nfn round_trips() {{\n{calls}}}\n",
    })
    code = "#[test]\nfn serializes() {\n    super::"
    text = context(collection, code, "src/date/serde.rs", max_tokens=40)
    assert "fn check_json(value: u32) -> bool {" in text
    code = "fn run() -> u32 {\n    crate::"
    text = context(collection, code, "src/date/serde.rs", max_tokens=40)
    assert "pub fn parse_all(n: u32) -> u32 {" in text


def test_a_rust_path_through_modules_is_a_use_of_what_it_names(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # serde_json's shape: two modules define a TOKEN, and code names one by its whole path
    # with no `use` (`crate::raw::TOKEN`); the crate's root re-exports what its modules
    # define (`pub use crate::ser::to_string;`), which `crate::to_string(` reaches.
    helpers = rust_helpers()
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "json"\nversion = "0.1.0"\n',
        "src/lib.rs": "mod number;\nmod raw;\nmod ser;\n\npub use crate::ser::to_string;\n"
                      + helpers,
        "src/number.rs": helpers + 'pub const TOKEN: &str = "$number";\n',
        "src/raw.rs": helpers + 'pub const TOKEN: &str = "$raw";\n',
        "src/ser.rs": helpers + "pub fn to_string(value: u32) -> String {\n    String::new()\n}\n",
    })
    code = ("fn is_raw(name: &str) -> bool {\n    name == crate::raw::TOKEN\n}\n\n"
            "fn show(n: u32) -> String {\n    crate::to_string(n)\n}\n\nfn check() {\n    ")
    text = context(collection, code, "src/de.rs", max_tokens=60)
    assert 'pub const TOKEN: &str = "$raw";' in text
    assert "pub fn to_string(value: u32) -> String {" in text
    assert "$number" not in text


# --- Java -------------------------------------------------------------------------------------


def java_helpers(folder: str, modifiers: str = "") -> dict[str, str]:
    """Twelve small classes of the package com.example.web in ``folder``: capacitor's shape,
    one package of many classes."""
    return {f"{folder}/Helper{i}.java": "package com.example.web;\n\n"
            f"public class Helper{i} {{\n    public {modifiers}int run{i}() {{\n"
            f"        return {i};\n    }}\n}}\n" for i in range(12)}


JAVA_MAIN = "app/src/main/java/com/example/web"


def java_package_in_use(
    tmp_path: Path, call: str, files: dict[str, str], modifiers: str = ""
) -> Collection:
    """``files`` beside the twelve helpers of com.example.web and a Router that uses each
    six times (``call`` formatted with ``i``): classes the package's files use often, which
    come first unless the code says otherwise."""
    uses = "".join("        " + call.format(i=i) + "\n" for i in range(12) for _ in range(6))
    return indexed(tmp_path, {
        **java_helpers(JAVA_MAIN, modifiers),
        f"{JAVA_MAIN}/Router.java": "package com.example.web;\n\npublic class Router {\n"
                                    f"    void route() {{\n{uses}    }}\n}}\n",
        **files,
    })


def test_a_java_file_sees_its_packages_classes_without_an_import(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # capacitor's shape: one package of forty classes, which use each other with no import;
    # the test tree's package is the main tree's.
    main = "app/src/main/java/com/example/web"
    collection = indexed(tmp_path, {
        **java_helpers(main),
        f"{main}/Bridge.java": "package com.example.web;\n\n/** The page's bridge. */\n"
                               "public class Bridge {\n"
                               '    public static final String FILE_START = "/_file_";\n'
                               "}\n",
        f"{main}/Router.java": "package com.example.web;\n\npublic class Router {\n"
                               "    String a = Bridge.FILE_START;\n"
                               "    String b = Bridge.FILE_START;\n}\n",
        # Another package's Bridge is no sibling.
        "app/src/main/java/com/example/other/Bridge.java":
            "package com.example.other;\n\npublic class Bridge {\n    int other;\n}\n",
    })
    code = "package com.example.web;\n\npublic class Server {\n    String start = "
    text = context(collection, code, f"{main}/Server.java", max_tokens=60)
    assert 'public static final String FILE_START = "/_file_";' in text
    assert "int other;" not in text
    test = "app/src/test/java/com/example/web/BridgeTest.java"
    code = "package com.example.web;\n\nclass BridgeTest {\n    void starts() {\n        "
    assert "public class Bridge {" in context(collection, code, test, max_tokens=60)


def test_a_java_class_of_the_package_that_the_file_names_weighs_as_an_import(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # capacitor's Bridge.java: `private App app;` among the fields, `this.app = new App();`
    # seventy lines down, the line the cursor starts. Java needs no import for App; the
    # field's type is that import.
    collection = java_package_in_use(tmp_path, "new Helper{i}();", {
        f"{JAVA_MAIN}/App.java": "package com.example.web;\n\npublic class App {\n"
                                 "    public App() {\n    }\n}\n",
    })
    middle = "".join(f"    int count{i}() {{\n        return {i};\n    }}\n\n" for i in range(20))
    code = ("package com.example.web;\n\npublic class Server {\n    private App app;\n\n"
            f"{middle}    void start() {{\n        ")
    text = context(collection, code, f"{JAVA_MAIN}/Server.java", max_tokens=30)
    assert "public class App {" in text


def test_an_outline_shows_documented_overloads_without_their_documentation(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # effect's Array.ts: each const's type lists its overloads, each under its own JSDoc
    # block, which left twenty lines of documentation in the outline and no overload.
    module = "".join(DOCUMENTED_OVERLOADS.replace("take", f"take{i}") + "\n" for i in range(6))
    collection = indexed(tmp_path, {"src/Arr.ts": module})
    code = 'import * as Arr from "./Arr.js"\n\nexport const first = (xs: Array<number>) =>\n  '
    text = context(collection, code, "src/First.ts", max_tokens=500)
    assert "what the overload does" not in text
    assert all(f"export const take{i}: {{(n: number): <A>(self: Iterable<A>) => Array<A> "
               "<A>(self: Iterable<A>, n: number): Array<A>} = dual(2," in text for i in range(6))


# --- A named import binds a definition, even in a file named for it --------------------------


def test_a_typescript_named_import_from_a_file_of_that_name_is_its_definition(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # rxjs's shape: `import { Observable } from './Observable'`. The import names the
    # definition, not a module whose every export is as likely.
    others = "".join(f"export function step{i}(text: string): string {{\n  return text;\n}}\n\n"
                     for i in range(10))
    collection = indexed(tmp_path, {
        "src/parse.ts": others + "export function parse(text: string): Tree {\n"
                                 "  return new Tree(text);\n}\n",
    })
    code = "import { parse } from './parse';\n\nexport function load(text: string) {\n  return "
    text = context(collection, code, "src/load.ts", max_tokens=40)
    assert "export function parse(text: string): Tree {" in text
    assert "step0" not in text


def test_a_java_import_is_its_class_before_the_packages_classes(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # capacitor's Bridge.java: `import com.getcapacitor.cordova.MockCordovaInterfaceImpl;`
    # names the class of MockCordovaInterfaceImpl.java, not a module whose definitions are
    # each half as likely: it comes before the package's classes, which its files use often.
    collection = java_package_in_use(tmp_path, "Helper{i}.run{i}();", {
        "app/src/main/java/com/example/mock/MockInterface.java":
            "package com.example.mock;\n\npublic class MockInterface {\n"
            "    public MockInterface(String activity) {\n    }\n}\n",
    }, modifiers="static ")
    code = ("package com.example.web;\n\nimport com.example.mock.MockInterface;\n\n"
            "public class Server {\n    void create(String activity) {\n        ")
    text = context(collection, code, f"{JAVA_MAIN}/Server.java", max_tokens=30)
    assert "public class MockInterface {" in text


def test_a_java_static_import_is_the_member_it_names(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # capacitor's CapConfig.java: `import static com.getcapacitor.Bridge.CAPACITOR_HTTPS_SCHEME;`
    # names a constant of the class Bridge.java is named for.
    main = "app/src/main/java/com/example/web"
    constants = "".join(f'    public static final String SCHEME_{i} = "s{i}";\n' for i in range(20))
    collection = indexed(tmp_path, {
        f"{main}/Bridge.java": "package com.example.web;\n\npublic class Bridge {\n"
                               + constants
                               + '    public static final String HTTPS_SCHEME = "https";\n}\n',
    })
    code = ("package com.example.web;\n\nimport static com.example.web.Bridge.HTTPS_SCHEME;\n\n"
            "public class Config {\n    private String scheme = ")
    text = context(collection, code, f"{main}/Config.java", max_tokens=30)
    assert 'public static final String HTTPS_SCHEME = "https";' in text


ANYHOW_SHAPED = {
    "Cargo.toml": '[package]\nname = "oops"\n',
    "src/lib.rs": "mod error;\n\n/// The error type.\npub struct Error {\n    inner: String,\n}\n",
    "src/error.rs": (
        "use crate::Error;\n\n"
        "impl Error {\n"
        "    /// Wraps any message.\n"
        "    pub fn new(message: &str) -> Self {\n"
        "        Error { inner: message.to_string() }\n"
        "    }\n\n"
        "    pub fn context(self, more: &str) -> Self {\n"
        "        self\n"
        "    }\n"
        "}\n"
    ),
    "src/parse.rs": "pub struct Error;\n\nimpl Error {\n    pub fn line(&self) -> usize {\n"
                    "        0\n    }\n}\n",
}
WRAPS = "use oops::Error;\n\n#[test]\nfn wraps() {\n    let e = Error::new("


def test_a_rust_types_impl_blocks_in_other_files_of_its_crate_are_its_members(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    files = {**ANYHOW_SHAPED}
    del files["src/parse.rs"]
    text = context(indexed(tmp_path, files), WRAPS, "tests/wrap.rs", max_tokens=400)
    assert "pub fn new(message: &str) -> Self {" in text
    assert "pub fn context(self, more: &str) -> Self {" in text


def test_a_rust_type_with_a_namesake_in_its_crate_keeps_to_its_own_file(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # Two types named Error: which one `impl Error` in error.rs is for, the file says.
    candidates = code_context._structural(indexed(tmp_path, ANYHOW_SHAPED), WRAPS, "",
                                          "tests/wrap.rs", "rust")
    lib_error = next(c for c in candidates.values()
                     if c.row.path == "src/lib.rs" and c.row.name == "Error")
    assert lib_error.members == []


# --- A class's members beside the ones the code uses ------------------------------------------


def test_a_members_neighbours_in_its_class_come_before_the_rest(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # clap's Command: a hundred builder methods, then the `is_*_set` getters side by side.
    # Code that asks one getter goes on to ask the next ones, which a budget that holds a
    # few of the members must show before the builder's.
    setters = "".join(f"    public Command option{i}(String value) {{\n        return this;\n"
                      "    }\n\n" for i in range(20))
    getters = "".join(f"    public boolean is{flag}Set() {{\n        return false;\n    }}\n\n"
                      for flag in ("Color", "Help", "Version", "Hidden"))
    collection = indexed(tmp_path, {
        f"{JAVA_MAIN}/Command.java": "package com.example.web;\n\npublic class Command {\n"
                                     f"{setters}{getters}}}\n",
    })
    code = ("package com.example.web;\n\nclass Checks {\n    void check(Command cmd) {\n"
            "        if (cmd.isHelpSet()) {\n            return;\n        }\n        ")
    text = context(collection, code, f"{JAVA_MAIN}/Checks.java", max_tokens=60)
    assert "public boolean isVersionSet() {" in text
    assert "public boolean isColorSet() {" in text
    assert "public Command option0(String value) {" not in text


def test_a_method_delegating_to_its_namesake_of_a_held_class_gets_it(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # The JDK's HttpExchangeImpl: each method returns its namesake of the ExchangeImpl it
    # holds (`return impl.getRequestBody();`). The callee's header line is in the edited
    # file, as the caller's own, which must not pass for the callee being shown already;
    # `impl.close()` just above, its neighbour, makes it the likely next call.
    steps = "".join(f"    void step{i}() {{\n    }}\n\n" for i in range(30))
    collection = indexed(tmp_path, {
        **java_helpers(JAVA_MAIN),
        f"{JAVA_MAIN}/ExchangeImpl.java": "package com.example.web;\n\n"
        f"class ExchangeImpl {{\n{steps}    void close() {{\n    }}\n\n"
        "    InputStream getRequestBody() {\n        return null;\n    }\n}\n",
    })
    code = ("package com.example.web;\n\nclass HttpExchangeImpl {\n    ExchangeImpl impl;\n\n"
            "    void close() {\n        impl.close();\n    }\n\n"
            "    InputStream getRequestBody() {\n        return ")
    path = f"{JAVA_MAIN}/HttpExchangeImpl.java"
    text = context(collection, code, path, max_tokens=80)
    assert "InputStream getRequestBody() {" in text
    assert "void step0() {" not in text


STACK_CRATE = {
    "Cargo.toml": '[package]\nname = "stack"\nversion = "0.1.0"\n',
    "src/lib.rs": "pub mod grow;\npub mod stack;\n",
    "src/stack.rs": "pub struct Stack {\n    items: Vec<u8>,\n}\n\nimpl Stack {\n"
                    "    pub fn push_all(&mut self, items: &[u8]) {\n"
                    "        self.items.extend_from_slice(items);\n    }\n}\n",
    # alloc's shape: a type's methods in the `impl` blocks of other files (spec_extend.rs).
    "src/grow.rs": "use crate::stack::Stack;\n\nimpl Stack {\n"
                   "    /// Makes room for `n` more items.\n"
                   "    pub fn reserve_more(&mut self, n: usize) {\n    }\n\n"
                   "    pub fn into_items(self) -> Vec<u8> {\n        Vec::new()\n    }\n}\n",
}


def test_rust_self_offers_its_types_methods_from_the_other_files_of_its_crate(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, STACK_CRATE)
    code = STACK_CRATE["src/stack.rs"].split("self.items")[0]
    text = context(collection, code, "src/stack.rs", max_tokens=100)
    assert "pub fn reserve_more(&mut self, n: usize) {" in text
    # Through `&mut self` a method that takes the value whole cannot be called.
    assert "pub fn into_items(self)" not in text


def test_a_function_the_code_reaches_by_its_module_is_shown_though_headed_as_the_one_open(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # The Rust standard library's hermit `cleanup()` calls `args::cleanup()`, headed alike:
    # the header in the prompt is the caller's, not the callee's.
    edited = ("pub mod args;\n\npub unsafe fn init(argc: isize) {\n    args::init(argc);\n}\n\n"
              "pub unsafe fn cleanup() {\n    args::cleanup();\n}\n")
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "sys"\nversion = "0.1.0"\n',
        "src/lib.rs": edited,
        "src/args.rs": "pub unsafe fn init(argc: isize) {\n}\n\npub unsafe fn cleanup() {\n}\n",
    })
    code = edited.split("args::cleanup")[0]
    text = context(collection, code, "src/lib.rs", max_tokens=100)
    assert "pub unsafe fn cleanup() {" in text.partition("src/args.rs")[2]


def test_a_twin_of_the_function_at_the_cursor_in_a_file_it_does_not_reach_is_not_shown(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # nom's `number::streaming` and `number::complete`: the same parsers, headed alike. The
    # other file's twin of the function being written is neither called nor new to the prompt.
    def parsers(kind: str) -> str:
        return (f"use crate::sign::sign;\n\n/// Parses a float ({kind}).\n"
                "pub fn float(input: &str) -> Option<f64> {\n    let negative = sign(input);\n"
                "    input.parse().ok()\n}\n")
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "num"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod complete;\npub mod sign;\npub mod streaming;\n",
        "src/sign.rs": "pub fn sign(input: &str) -> bool {\n    input.starts_with('-')\n}\n",
        "src/complete.rs": parsers("complete"),
        "src/streaming.rs": parsers("streaming"),
    })
    code = parsers("streaming").split("    input.parse")[0]
    text = context_for_code(collection, code, path="src/streaming.rs", max_tokens=200).text
    assert "src/complete.rs" not in text
    assert "pub fn sign(input: &str) -> bool {" in text


def test_a_trait_method_the_code_implements_is_in_the_prompt_already(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # tokio's `impl AsyncRead for Take<R>`: the trait's declaration of `poll_read`, whose
    # first line the code's holds, is the header the code is writing the body of, though the
    # code imports the trait.
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "io"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod buf;\npub mod read;\npub mod take;\n",
        "src/read.rs": "pub trait AsyncRead {\n    /// Reads into `buf`.\n    fn poll_read(\n"
                       "        &mut self,\n        buf: &mut Buf,\n    ) -> usize;\n}\n",
        "src/buf.rs": "pub struct Buf;\n\nimpl Buf {\n"
                      "    pub fn take(&mut self, n: usize) -> Buf {\n        Buf\n    }\n}\n",
    })
    code = ("use crate::buf::Buf;\nuse crate::read::AsyncRead;\n\npub struct Take;\n\n"
            "impl AsyncRead for Take {\n    fn poll_read(\n        &mut self,\n"
            "        buf: &mut Buf,\n    ) -> usize {\n        ")
    found = {c.row.qualname for c in code_context.ranked_candidates(
        collection, code, path="src/take.rs", similar=False)}
    assert "Buf.take" in found and "AsyncRead" in found
    assert "AsyncRead.poll_read" not in found


def test_a_function_returning_what_the_function_at_the_cursor_returns_comes_first(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # chrono: `fn parse_from_str(..) -> ParseResult<NaiveDate>` ends in
    # `parsed.to_naive_date()`, the 26th of Parsed's 28 members, after its setters.
    setters = "".join(f"    pub fn set_{field}(&mut self, value: i64) -> ParseResult<()> {{\n"
                      "        Ok(())\n    }\n\n" for field in ("year", "month", "day", "hour",
                                                               "minute", "second", "offset"))
    getters = "".join(f"    pub fn to_{made.lower()}(&self) -> ParseResult<{made}> {{\n"
                      "        Err(INVALID)\n    }\n\n"
                      for made in ("NaiveTime", "NaiveDate", "DateTime"))
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "dates"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod parsed;\npub mod date;\n",
        "src/parsed.rs": "pub type ParseResult<T> = Result<T, ParseError>;\n\n"
                         "pub struct Parsed {\n    year: i64,\n}\n\nimpl Parsed {\n"
                         "    pub fn new() -> Parsed {\n        Parsed { year: 0 }\n    }\n\n"
                         f"{setters}{getters}}}\n",
    })
    code = ("use crate::parsed::{Parsed, ParseResult};\n\npub struct NaiveDate(i32);\n\n"
            "impl NaiveDate {\n"
            "    pub fn parse_from_str(s: &str) -> ParseResult<NaiveDate> {\n"
            "        let mut parsed = Parsed::new();\n        parsed.set_year(s.len() as i64)?;\n"
            "        ")
    text = context(collection, code, "src/date.rs", max_tokens=60)
    assert "pub fn to_naivedate(&self) -> ParseResult<NaiveDate> {" in text
    assert "pub fn to_datetime(&self) -> ParseResult<DateTime> {" not in text


def test_a_go_function_returning_what_the_function_at_the_cursor_returns_comes_first(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    methods = "".join(f"func (b *Binder) Set{field}(v string) error {{\n\treturn nil\n}}\n\n"
                      for field in ("Name", "Path", "Query", "Header", "Cookie", "Body"))
    collection = indexed(tmp_path, {
        "go.mod": "module example.com/app\n\ngo 1.21\n",
        "web/binder.go": "package web\n\n// Binder binds a request.\ntype Binder struct {\n"
                         "\tname string\n}\n\nfunc NewBinder() *Binder {\n\treturn &Binder{}\n}\n\n"
                         f"{methods}func (b *Binder) Form() (*Form, error) {{\n"
                         "\treturn nil, nil\n}\n\n"
                         "func (b *Binder) Params() (*Params, error) {\n\treturn nil, nil\n}\n",
        "web/form.go": "package web\n\n// Form is a parsed form.\ntype Form struct {\n}\n\n"
                       "// Params are parsed parameters.\ntype Params struct {\n}\n",
    })
    code = ("package web\n\nfunc (c *Context) Bind(name string) (*Form, error) {\n"
            "\tb := NewBinder()\n\tif err := b.SetName(name); err != nil {\n"
            "\t\treturn nil, err\n\t}\n\t")
    text = context(collection, code, "web/context.go", max_tokens=70)
    assert "func (b *Binder) Form() (*Form, error) {" in text
    assert "func (b *Binder) Params() (*Params, error) {" not in text


def test_a_function_named_as_the_function_at_the_cursor_comes_first(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # std's `impl Read for File`: `fn read_vectored(..)` delegates to
    # `io::default_read_vectored(..)`, far down io's long list of functions.
    others = "".join(f"pub fn {name}() -> usize {{\n    0\n}}\n\n" for name in (
        "copy", "empty", "repeat", "sink", "stdin", "stdout", "stderr", "read_to_string"))
    defaults = "".join(f"pub fn default_{name}(bufs: &[u8]) -> Result<usize> {{\n    Ok(0)\n}}\n\n"
                       for name in ("write_vectored", "read_exact", "read_vectored"))
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "files"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod io;\npub mod fs;\n",
        "src/io.rs": f"pub type Result<T> = core::result::Result<T, Error>;\n\n{others}{defaults}",
    })
    code = ("use crate::io;\n\npub struct File(u32);\n\nimpl File {\n"
            "    pub fn read_vectored(&mut self, bufs: &[u8]) -> io::Result<usize> {\n        ")
    text = context(collection, code, "src/fs.rs", max_tokens=50)
    assert "pub fn default_read_vectored(bufs: &[u8]) -> Result<usize> {" in text
    assert "pub fn sink() -> usize {" not in text


RUST_LEXER = """mod unicode;

/// A token.
pub struct Token {
    pub kind: u8,
}

/// Reads tokens from source text.
pub struct Lexer<'a> {
    src: &'a str,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Lexer { src }
    }

    pub fn next_token(&mut self) -> Option<Token> {
        self.bump();
        None
    }

    fn bump(&mut self) -> Option<char> {
        None
    }
}

impl<'a> Iterator for Lexer<'a>
where
    'a: 'a,
{
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        self.next_token()
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic()
}
"""


def test_rust_items_without_pub_are_offered_to_their_module_alone(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # Code in another module cannot call a private helper (`bump`, `is_ident_start`), so
    # it takes no budget there; a trait's methods need no `pub`, and a submodule sees its
    # parent's private items.
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "calc"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod lexer;\npub mod parser;\n",
        "src/lexer.rs": RUST_LEXER,
    })
    code = ("use crate::lexer::Lexer;\n\npub fn parse(src: &str) -> usize {\n"
            "    let mut lexer = Lexer::new(src);\n"
            "    let first = crate::lexer::Token { kind: 0 };\n    lexer.")
    text = context(collection, code, "src/parser.rs")
    assert "pub fn next_token(&mut self) -> Option<Token> {" in text
    assert "fn next(&mut self) -> Option<Token> {" in text
    assert "fn bump(" not in text and "fn is_ident_start(" not in text
    text = context(collection, "pub fn start(c: char) -> bool {\n    super::",
                   "src/lexer/unicode.rs")
    assert "fn is_ident_start(c: char) -> bool {" in text


GO_SCAN = """package scan

// Scanner splits text into words.
type Scanner struct {
	text string
}

// Next returns the next word.
func (s *Scanner) Next() string {
	s.advance()
	return ""
}

func (s *Scanner) advance() {
}

// Words splits text into words.
func Words(text string) []string {
	return nil
}

func skipSpace(text string) int {
	return 0
}
"""


def test_go_names_without_a_capital_are_offered_to_their_package_alone(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, {
        "go.mod": "module example.com/words\n\ngo 1.21\n",
        "scan/scan.go": GO_SCAN,
    })
    code = ('package main\n\nimport "example.com/words/scan"\n\nfunc main() {\n'
            '\ts := &scan.Scanner{}\n\ts.Next()\n\tscan.')
    text = context(collection, code, "cmd/main.go")
    assert "func Words(text string) []string {" in text
    assert "func (s *Scanner) Next() string {" in text
    assert "func skipSpace(" not in text and "func (s *Scanner) advance()" not in text
    text = context(collection, "package scan\n\nfunc Lines(text string) []string {\n\ti := ",
                   "scan/lines.go")
    assert "func skipSpace(text string) int {" in text


def test_a_class_imported_under_another_name_is_held_under_its_own(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    # chrono's `use crate::oldtime::Duration as OldDuration;` then `rhs: OldDuration`: a
    # value held under the alias calls the methods that take `self`, not the constructors
    # that the type's outline lists first.
    constructors = "".join(f"    pub fn {unit}(n: i64) -> Duration {{\n"
                           "        Duration { secs: n }\n    }\n\n"
                           for unit in ("weeks", "days", "hours", "minutes", "seconds"))
    collection = indexed(tmp_path, {
        "Cargo.toml": '[package]\nname = "dates"\nversion = "0.1.0"\n',
        "src/lib.rs": "pub mod oldtime;\npub mod date;\n",
        "src/oldtime.rs": "pub struct Duration {\n    secs: i64,\n}\n\nimpl Duration {\n"
                          + constructors + "    pub fn num_days(&self) -> i64 {\n"
                          "        self.secs / 86400\n    }\n}\n",
    })
    code = ("use crate::oldtime::Duration as OldDuration;\n\n"
            "pub fn is_later(limit: i64, rhs: OldDuration) -> bool {\n    limit < rhs.")
    text = context(collection, code, "src/date.rs", max_tokens=40)
    assert "pub fn num_days(&self) -> i64 {" in text


TS_DATES = """import { Locale } from "./locale";

/** Parses an ISO date. */
export function parseDate(text: string): Date {
  return new Date(text);
}

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

function formatDate(date: Date): string {
  return pad(date.getDate());
}

export { formatDate };
"""


def test_typescript_names_a_module_does_not_export_are_offered_to_it_alone(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    collection = indexed(tmp_path, {
        "package.json": '{"name": "dates"}\n',
        "src/dates.ts": TS_DATES,
        "src/locale.ts": "export interface Locale {\n  name: string;\n}\n",
    })
    code = 'import * as dates from "./dates";\n\nexport function today(): string {\n  return dates.'
    text = context(collection, code, "src/index.ts")
    assert "export function parseDate(text: string): Date {" in text
    assert "function formatDate(date: Date): string {" in text  # exported by its list
    assert "function pad(" not in text


JAVA_CLIENT = """package com.acme.net;

/** Sends requests. */
public class Client {
    public void send(String body) {
        retry();
    }

    void retry() {
    }
}
"""


def test_java_names_without_public_are_offered_to_their_package_alone(
    tmp_path: Path, fake_encoder: FakeEncoder
) -> None:
    main = "src/main/java/com/acme"
    collection = indexed(tmp_path, {
        f"{main}/net/Client.java": JAVA_CLIENT,
        f"{main}/net/Pool.java": "package com.acme.net;\n\nclass Pool {\n    int size;\n}\n",
    })
    code = ("package com.acme.app;\n\nimport com.acme.net.Client;\n\npublic class Main {\n"
            "    void run(Client client) {\n        client.")
    text = context(collection, code, f"{main}/app/Main.java")
    assert "public void send(String body) {" in text
    assert "void retry()" not in text and "class Pool" not in text
    # The package's test tree is the package too.
    code = ("package com.acme.net;\n\nclass ClientTest {\n"
            "    void retries(Client client) {\n        ")
    text = context(collection, code, "src/test/java/com/acme/net/ClientTest.java")
    assert "void retry() {" in text
