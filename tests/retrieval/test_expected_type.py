"""The type the code at the cursor is making, read from the function open there."""

from __future__ import annotations

from embedstore.retrieval.expected_type import expected_types, returned_types

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


def test_a_rust_function_open_at_the_cursor_expects_its_return_type() -> None:
    assert expected_types(RUST_IMPL, "rust") == {"ParseResult", "NaiveDate"}


def test_rust_self_is_the_type_of_the_impl_block_around_it() -> None:
    code = RUST_IMPL.split("impl NaiveDate")[0].replace("        Year(value.into())\n    }\n}\n",
                                                        "        ")
    assert expected_types(code, "rust") == {"Year"}


def test_a_cursor_between_functions_expects_nothing() -> None:
    assert expected_types(RUST_IMPL.split("impl NaiveDate")[0], "rust") == frozenset()
    assert expected_types("fn main() {\n    run();\n", "rust") == frozenset()


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
    assert expected_types(code, "go") == {"Binding"}
    assert returned_types("func New(opts ...Option) *Router {", "go") == {"Router"}
    assert returned_types("func (r *Router) Serve() {", "go") == frozenset()


def test_a_java_method_expects_its_return_type_and_a_constructor_nothing() -> None:
    code = ("class Parser {\n    public Parser(String text) {\n        this.text = text;\n    }\n\n"
            "    @Override\n    protected synchronized List<LogRecord> records(Level level) {\n"
            "        if (level == null) {\n            return null;\n        }\n        ")
    assert expected_types(code, "java") == {"List", "LogRecord"}
    assert expected_types(code.split("    @Override")[0] + "    ", "java") == frozenset()
    assert returned_types("    public static <T> Handler[] handlers(T owner) {", "java") == {
        "Handler"}
    assert returned_types("    void run() {", "java") == frozenset()


def test_a_language_without_rules_expects_nothing() -> None:
    assert expected_types("def f() -> Point:\n    ", "python") == frozenset()
    assert returned_types("def f() -> Point:", "python") == frozenset()
    assert expected_types("function f(): Point {\n  ", "typescript") == frozenset()
