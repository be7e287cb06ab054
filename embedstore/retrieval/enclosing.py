"""The function open at the cursor: its name and what type it says it returns.

Both say what the next line likely calls. A line inside `fn parse_from_str(s: &str) ->
ParseResult<NaiveDate>` most likely calls what gives a `ParseResult<NaiveDate>`
(`parsed.to_naive_date()`), as completion engines have long ranked by the expected type;
and a function often delegates to one named like itself (`fn read_buf` calls
`default_read_buf`, Go's `BindJSON` calls `bindJSON`). A type is the set of type names its
text writes (`ParseResult`, `NaiveDate`), `Self` read as the type of the `impl` block
around it.

One pass over the text, no parse, per language (Rust, Go, Java); a language without rules
knows no function at the cursor: Python's and TypeScript's return annotations are
optional, and 4% of TypeScript cursors of train-multi had one to read (recall unchanged,
cursor for cursor).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from embedstore.retrieval.receivers import RUST_IMPL, return_type_text, rust_impl_type, still_open

# A type's name as these languages write it (Go's exported ones): capitalised, so that no
# primitive (`usize`, `string`, `void`) passes.
_TYPE_NAME = re.compile(r"\b[A-Z]\w*")


@dataclass(frozen=True)
class _Rule:
    function: re.Pattern[str]  # a function's header, up to its name
    # A block that gives `Self` a type, and that type's name.
    self_block: re.Pattern[str] | None = None
    self_type: Callable[[re.Match[str]], str] = lambda block: ""


# A function's or method's header up to its name (a method's receiver in parentheses).
_GO_FUNC = re.compile(r"^func[ \t]*(?:\([^)\n]*\)[ \t]*)?\w+", re.MULTILINE)
# A method's header up to its name: modifiers and annotations, type parameters, the returned
# type, then the name and `(`; a statement never reads so (`return f(`, `new T(`, `else if (`).
_JAVA_WORDS = ("public|protected|private|static|final|abstract|synchronized|native|default|"
               "strictfp|return|new|throw|else|case|yield|await")
_JAVA_METHOD = re.compile(
    r"^[ \t]*(?:@\w+(?:\([^)\n]*\))?[ \t]+)*"
    rf"(?:(?:{_JAVA_WORDS})[ \t]+)*(?:<[^>\n]*>[ \t]+)?"
    rf"(?!(?:{_JAVA_WORDS})\b)(?:[\w.$]+(?:<[^;{{()\n]*>)?(?:\[\])*)[ \t]+[\w$]+[ \t]*\(",
    re.MULTILINE)


# A header's last name, before the `(` of its parameters where the header holds it (Java's).
_LAST_NAME = re.compile(r"([\w$]+)[ \t]*\(?$")
_RULES: dict[str, _Rule] = {
    "rust": _Rule(
        re.compile(r"^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?"
                   r"(?:(?:const|async|unsafe|extern[ \t]+\"\w+\")[ \t]+)*fn[ \t]+\w+",
                   re.MULTILINE),
        RUST_IMPL, lambda block: rust_impl_type(block["head"])),
    "go": _Rule(_GO_FUNC),
    "java": _Rule(_JAVA_METHOD),
}


@dataclass(frozen=True)
class Enclosing:
    """The function whose body is open at the cursor."""

    name: str
    returns: frozenset[str]  # the type names of its return type


def enclosing_function(code: str, language: str) -> Enclosing | None:
    """The function whose body is open at the end of ``code``, if a rule reads it."""
    rule = _RULES.get(language)
    if rule is None:
        return None
    headers = list(rule.function.finditer(code))
    if not headers:
        return None
    header = headers[-1]
    body = code.find("{", header.end())
    if body < 0 or not still_open(code, body):
        return None
    owner = ""
    if rule.self_block is not None:
        for block in rule.self_block.finditer(code, 0, header.start()):
            owner = rule.self_type(block)
    name = _LAST_NAME.search(header[0])
    return Enclosing(name[1] if name is not None else "",
                     returned_types(code[header.start():body + 1], language, owner))


def returned_types(signature: str, language: str, owner: str = "") -> frozenset[str]:
    """The type names ``signature`` (from the line naming the function) says it returns;
    ``Self`` is ``owner``."""
    written = set(_TYPE_NAME.findall(return_type_text(signature, language)))
    if "Self" in written:
        written.discard("Self")
        written.add(owner)
    # A one-letter name is a type parameter (`Option<T>`), which says nothing of the type.
    return frozenset(name for name in written if len(name) > 1)
