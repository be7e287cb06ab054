from __future__ import annotations

from pathlib import Path

import pytest

from embedstore.languages import (
    FALLBACK_LANGUAGE,
    Declared,
    callable_through,
    detect_language,
    is_private_member,
    reachable_from,
)


@pytest.mark.parametrize(
    ("file_name", "language"),
    [
        ("main.py", "python"),
        ("stubs.pyi", "python"),
        ("app.js", "javascript"),
        ("module.mjs", "javascript"),
        ("config.cjs", "javascript"),
        ("Button.jsx", "javascript"),
        ("index.ts", "typescript"),
        ("index.mts", "typescript"),
        ("index.cts", "typescript"),
        ("types.d.ts", "typescript"),
        ("App.tsx", "tsx"),
        ("server.go", "go"),
        ("lib.rs", "rust"),
        ("Main.java", "java"),
        ("util.c", "c"),
        ("util.h", "c"),
        ("vec.cc", "cpp"),
        ("vec.cpp", "cpp"),
        ("vec.cxx", "cpp"),
        ("vec.hpp", "cpp"),
        ("vec.hh", "cpp"),
        ("vec.hxx", "cpp"),
        ("README.md", "markdown"),
        ("notes.markdown", "markdown"),
        ("index.rst", "rst"),
        ("data.json", "json"),
        ("ci.yaml", "yaml"),
        ("ci.yml", "yaml"),
        ("pyproject.toml", "toml"),
        ("setup.sh", "shell"),
        ("build.bash", "shell"),
        ("prompt.zsh", "shell"),
        ("config.fish", "fish"),
        ("page.html", "html"),
        ("site.css", "css"),
        ("schema.sql", "sql"),
        ("task.rb", "ruby"),
        ("index.php", "php"),
        ("App.kt", "kotlin"),
        ("build.gradle.kts", "kotlin"),
        ("View.swift", "swift"),
        ("Program.cs", "csharp"),
        ("Job.scala", "scala"),
        ("worksheet.sc", "scala"),
        ("init.lua", "lua"),
        ("analysis.R", "r"),
        ("setup.cfg", "ini"),
        ("pom.xml", "xml"),
        ("notes.txt", "text"),
        ("Makefile", "make"),
        ("Dockerfile", "dockerfile"),
        ("Dockerfile.dev", "dockerfile"),
        ("CMakeLists.txt", "cmake"),
    ],
)
def test_detect_language_from_file_name(file_name: str, language: str) -> None:
    assert detect_language(file_name) == language


def test_detect_language_ignores_case_of_extension_and_name() -> None:
    assert detect_language("README.MD") == "markdown"
    assert detect_language("Main.JAVA") == "java"
    assert detect_language("MAKEFILE") == "make"


def test_detect_language_uses_only_the_last_path_component() -> None:
    assert detect_language(Path("src/Makefile.d/tool.py")) == "python"
    assert detect_language("project.go/README") == FALLBACK_LANGUAGE


@pytest.mark.parametrize("file_name", ["LICENSE", "data.unknownext", ".gitignore", "noext"])
def test_unknown_files_fall_back_to_text(file_name: str) -> None:
    assert detect_language(file_name) == "text"


@pytest.mark.parametrize(("name", "declaration", "language", "private"), [
    ("count", "    private int count;", "java", True),
    ("get", "    @Override\n    private Foo get(int a) {", "java", True),
    ("count", "    protected int count;", "java", False),
    ("privateKey", "    String privateKey;", "java", False),  # the word, not the name
    ("x", "  private readonly x: Foo;", "typescript", True),
    ("x", "  readonly x: Foo; // not private", "typescript", False),  # after the name
    ("#x", "  #x = 1;", "javascript", True),
    ("_x", "    _x = 1", "python", False),  # a convention subclasses elsewhere break
])
def test_private_members_are_those_no_other_file_reaches(
    name: str, declaration: str, language: str, private: bool
) -> None:
    assert is_private_member(name, declaration, language) is private


STRUCT = "#[derive(Clone, Debug)]\npub struct Command {"
COPY_STRUCT = "#[derive(Clone, Copy, PartialEq)]\npub struct Date {"


@pytest.mark.parametrize(("member", "borrow", "owner", "callable_"), [
    ("    pub fn name(&self) -> &str {", "&", STRUCT, True),
    ("    pub fn name<'a>(&'a self) -> &'a str {", "&", STRUCT, True),
    ("    pub fn push(&mut self, arg: Arg) {", "&", STRUCT, False),
    ("    pub fn push(&mut self, arg: Arg) {", "&mut", STRUCT, True),
    ("    pub fn push(&'a mut self, arg: Arg) {", "&mut", STRUCT, True),
    ("    pub fn arg(mut self, arg: Arg) -> Self {", "&", STRUCT, False),
    ("    pub fn arg(mut self, arg: Arg) -> Self {", "&mut", STRUCT, False),
    ("    pub fn arg(mut self, arg: Arg) -> Self {", "", STRUCT, True),
    ("    #[must_use]\n    pub fn build(self) -> Built {", "", STRUCT, True),
    # A Copy type's value is copied out of a reference to call a method that takes it whole.
    ("    pub fn succ(self) -> Date {", "&", COPY_STRUCT, True),
    # An associated function is called through the type, never through a value.
    ("    pub fn new(name: &str) -> Self {", "", STRUCT, False),
    ("    pub fn new(name: &str) -> Self {", "&", STRUCT, False),
    ("    /// Not `into(self)`.\n    pub fn new(name: &str) -> Self {", "", STRUCT, False),
    ("    pub fn map<F: Fn(u8) -> u8>(self, f: F) -> Self {", "", STRUCT, True),
    ("    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {", "&mut", STRUCT, True),
])
def test_a_rust_method_is_callable_through_a_value_as_its_self_says(
    member: str, borrow: str, owner: str, callable_: bool
) -> None:
    rule = callable_through("rust")
    assert rule is not None and rule(member, borrow, owner) is callable_


@pytest.mark.parametrize("language", ["java", "python", "typescript", "go"])
def test_other_languages_call_every_member_through_a_value(language: str) -> None:
    assert callable_through(language) is None


TS_MODULE = ("import { x } from './x';\nfunction pad() {}\nfunction fmt() {}\n"
             "export { fmt as format };\n")


@pytest.mark.parametrize(("language", "item", "user", "reachable"), [
    # Rust: `pub` anywhere; without it, the module (`a/b.rs` or `a/b/mod.rs`) and below.
    ("rust", Declared("src/a/b.rs", "helper", "fn helper() {", "", ""), "src/a/b/c.rs", True),
    ("rust", Declared("src/a/b.rs", "helper", "fn helper() {", "", ""), "src/a/c.rs", False),
    ("rust", Declared("src/a/mod.rs", "helper", "fn helper() {", "", ""), "src/a/c.rs", True),
    ("rust", Declared("src/lib.rs", "helper", "fn helper() {", "", ""), "src/x/y.rs", True),
    ("rust", Declared("src/a.rs", "run", "pub(crate) fn run() {", "", ""), "src/b.rs", True),
    ("rust", Declared("src/a.rs", "m", "#[macro_export]\nmacro_rules! m {", "", ""), "src/b.rs",
     True),
    ("rust", Declared("src/a.rs", "Lexer.bump", "    fn bump(&mut self) {", "impl Lexer {", ""),
     "src/b.rs", False),
    ("rust", Declared("src/a.rs", "Lexer.next", "    fn next(&mut self) -> Option<T> {",
                      "impl<'a> Iterator for Lexer<'a>", ""), "src/b.rs", True),
    ("rust", Declared("src/a.rs", "Shape.Circle", "    Circle(f64),", "pub enum Shape {", ""),
     "src/b.rs", True),
    ("rust", Declared("src/a.rs", "Point.x", "    x: i32,", "pub struct Point {", ""),
     "src/b.rs", False),
    # Go: a capital, or the same package's folder.
    ("go", Declared("scan/scan.go", "skipSpace", "func skipSpace() {", "", ""), "cmd/main.go",
     False),
    ("go", Declared("scan/scan.go", "skipSpace", "func skipSpace() {", "", ""), "scan/lines.go",
     True),
    ("go", Declared("scan/scan.go", "Scanner.Next", "func (s *Scanner) Next() {", "", ""),
     "cmd/main.go", True),
    # TypeScript: exported on the declaration or by a list; a script's names are global.
    ("typescript", Declared("src/dates.ts", "pad", "function pad() {}", "", TS_MODULE),
     "src/i.ts", False),
    ("typescript", Declared("src/dates.ts", "fmt", "function fmt() {}", "", TS_MODULE),
     "src/i.ts", True),
    ("typescript", Declared("src/dates.ts", "x", "export const x = 1;", "", TS_MODULE),
     "src/i.ts", True),
    ("javascript", Declared("lib/g.js", "pad", "function pad() {}", "", "function pad() {}\n"),
     "lib/i.js", True),
    ("javascript", Declared("lib/g.js", "pad", "function pad() {}", "",
                            "const a = require('a');\nmodule.exports = { pad };\n"),
     "lib/i.js", True),
    # Java: public or protected, or the same package (its test tree too).
    ("java", Declared("src/main/java/a/b/C.java", "C.retry", "    void retry() {",
                      "public class C {", "package a.b;\n"), "src/main/java/a/x/M.java", False),
    ("java", Declared("src/main/java/a/b/C.java", "C.retry", "    void retry() {",
                      "public class C {", "package a.b;\n"), "src/test/java/a/b/T.java", True),
    ("java", Declared("src/main/java/a/b/C.java", "C.send", "    public void send() {",
                      "public class C {", "package a.b;\n"), "src/main/java/a/x/M.java", True),
    ("java", Declared("src/main/java/a/b/I.java", "I.run", "    void run();",
                      "public interface I {", "package a.b;\n"), "src/main/java/a/x/M.java", True),
])
def test_what_a_file_can_name_is_as_its_language_says(
    language: str, item: Declared, user: str, reachable: bool
) -> None:
    rule = reachable_from(language)
    assert rule is not None and rule(item, user) is reachable


def test_python_names_are_reachable_from_any_file() -> None:
    assert reachable_from("python") is None
