"""The function open at the cursor: its name and the type it returns."""

from __future__ import annotations

from embedstore.retrieval.enclosing import Enclosing, enclosing_function, returned_types

RUST_IMPL = """use crate::format::{Parsed, ParseResult};

impl<T: Into<u32>> From<T> for Year {
    fn from(value: T) -> Self {
        Year(value.into())
    }
}

impl NaiveDate {
    /// Parses a date.
    ///
    /// ```
    /// fn example() -> Example {}
    /// ```
    pub fn parse_from_str(s: &str, fmt: &str) -> ParseResult<NaiveDate> {
        let mut parsed = Parsed::new();
        if s.is_empty() {
            return Err(INVALID);
        }
"""


def expected_types(code: str, language: str) -> frozenset[str]:
    found = enclosing_function(code, language)
    return found.returns if found is not None else frozenset()


def test_a_rust_function_open_at_the_cursor_expects_its_return_type() -> None:
    found = enclosing_function(RUST_IMPL, "rust")
    assert found is not None and found.name == "parse_from_str"
    assert expected_types(RUST_IMPL, "rust") == {"ParseResult", "NaiveDate"}


def test_rust_self_is_the_type_of_the_impl_block_around_it() -> None:
    code = RUST_IMPL.split("impl NaiveDate")[0].replace("        Year(value.into())\n    }\n}\n",
                                                        "        ")
    assert expected_types(code, "rust") == {"Year"}


def test_a_cursor_between_functions_is_in_none() -> None:
    assert enclosing_function(RUST_IMPL.split("impl NaiveDate")[0], "rust") is None
    assert enclosing_function("fn main() {\n    run();\n}\n", "rust") is None
    # A function with no return type is still the one at the cursor, by its name.
    assert enclosing_function("fn main() {\n    run();\n", "rust") == Enclosing(
        "main", frozenset())


def test_what_a_rust_signature_returns() -> None:
    assert returned_types("pub fn to_naive_date(&self) -> ParseResult<NaiveDate> {",
                          "rust") == {"ParseResult", "NaiveDate"}
    assert returned_types("fn new() -> Self {", "rust", "Point") == {"Point"}
    assert returned_types("fn read(&mut self) -> io::Result<usize>\n    where T: Read,\n{",
                          "rust") == {"Result"}
    assert returned_types("fn trait_method(&self);", "rust") == frozenset()


def test_a_go_function_expects_its_results_types_but_the_error() -> None:
    code = ("package web\n\nfunc (c *Context) Bind(form map[string]string) (*Binding, error) {\n"
            "\tif form == nil {\n\t\treturn nil, nil\n\t}\n\t")
    assert enclosing_function(code, "go") == Enclosing("Bind", frozenset({"Binding"}))
    assert returned_types("func New(opts ...Option) *Router {", "go") == {"Router"}
    assert returned_types("func (r *Router) Serve() {", "go") == frozenset()


def test_a_java_method_expects_its_return_type_and_a_constructor_nothing() -> None:
    code = ("class Parser {\n    public Parser(String text) {\n        this.text = text;\n    }\n\n"
            "    @Override\n    protected synchronized List<LogRecord> records(Level level) {\n"
            "        if (level == null) {\n            return null;\n        }\n        ")
    assert enclosing_function(code, "java") == Enclosing("records",
                                                         frozenset({"List", "LogRecord"}))
    assert expected_types(code.split("    @Override")[0] + "    ", "java") == frozenset()
    assert returned_types("    public static <T> Handler[] handlers(T owner) {", "java") == {
        "Handler"}
    assert returned_types("    void run() {", "java") == frozenset()


def test_a_language_without_rules_knows_no_function_at_the_cursor() -> None:
    assert enclosing_function("def f() -> Point:\n    ", "python") is None
    assert returned_types("def f() -> Point:", "python") == frozenset()
    assert enclosing_function("function f(): Point {\n  ", "typescript") is None
