"""What class a name of the code before the cursor holds, as that code shows it.

The next `x.` of a line is a member of x's class; knowing the class, code-at-cursor
shows its likely members first (DraCo, ACL 2024, follows dataflow the same way, much
further). One pass over the text, no parse, per language:

- `x = Cls(...)`, `x = mod.Cls(...)`, `with Cls(...) as x`, `self.attr = Cls(...)`:
  x holds what calling Cls gives;
- `x = f(...)`, `resp = session.get(...)`: what f's (get's) return annotation says,
  which the caller reads from the definitions (:func:`returned_type`);
- `def f(x: Cls)`, `x: Cls = ...`: the annotation's class.

Java, TypeScript (and JavaScript), Go and Rust have the same three kinds of binding:
`new Cls(...)`, `x := pkg.NewT(...)`, `let x = Type::new(...)`; `const x = f(...)`; and a
declared type (`Cls x;`, `x: Cls`, `var x *T`, `fn f(x: &Type)`). Rust's `self`, in a
method of an `impl` block, holds the block's type; a field of `self`, the type its struct
declares (:func:`field_types` reads the struct, held_members.py finds it).

A later binding of a name overrides an earlier one; nothing here knows which names
are classes: the caller looks them up. Every pattern is linear in the text: each starts
where only a few of its matches can (a word's start, a keyword, a bracket), and scans
no further than the next bracket or line break.
"""

from __future__ import annotations

import bisect
import collections
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from embedstore.chunking.symbols import without_turbofish


@dataclass(frozen=True)
class Receiver:
    """``name`` (a variable, ``self.attr`` or ``this.attr``) holds what ``source`` makes: an
    instance of the class ``source`` names (``called`` false: an annotation), or what calling
    ``source`` returns (a class's instance, or a function's return annotation's)."""

    name: str
    source: str
    called: bool
    line: int  # 1-based, where the binding is written
    # How the name holds it where the language tells (Rust: "&", "&mut"): which of the
    # class's members it can call. Empty: owned, or not told.
    borrow: str = ""
    # A method's own receiver (Rust's `self`, Go's `func (s *Server)`): each method binds
    # it anew, to the same class.
    own: bool = False


def _line_of(code: str) -> Callable[[int], int]:
    """The 1-based line of an offset of ``code``: counting the line breaks before each
    binding anew is quadratic in a file of many bindings."""
    breaks = [found.start() for found in re.finditer("\n", code)]
    return lambda at: bisect.bisect_left(breaks, at) + 1


_NAME = r"[A-Za-z_]\w*"
_DOTTED = rf"{_NAME}(?:\.{_NAME})*"
# Up to two levels of `(...)`, as in a parameter list with a default's call.
_PARENS = r"\((?P<params>[^()]*(?:\([^()]*\)[^()]*)*)\)"
# Up to two levels of `<...>`: `Map<String, List<Foo>>`; deeper ones are containers.
_GENERIC = r"<[^<>\n]*(?:<[^<>\n]*>[^<>\n]*)*>"

# --- Python -----------------------------------------------------------------------------------

# `x = Cls(`, `self.x: T = await mod.f(`
_PY_CALLED = re.compile(
    rf"^[ \t]*(?P<name>(?:self\.)?{_NAME})[ \t]*(?::[^=\n]*)?=[ \t]*(?:await[ \t]+)?"
    rf"(?P<source>{_DOTTED})[ \t]*\(", re.MULTILINE)
_PY_WITH = re.compile(
    rf"\bwith[ \t]+(?:await[ \t]+)?(?P<source>{_DOTTED})[ \t]*"
    rf"\([^()\n]*(?:\([^()\n]*\)[^()\n]*)*\)[ \t]+as[ \t]+(?P<name>{_NAME})")
# `x: T` at a statement's start (a variable) or in a `def`'s parameters.
_PY_ANNOTATED = re.compile(rf"^[ \t]*(?P<name>(?:self\.)?{_NAME})[ \t]*:[ \t]*(?P<type>[^=\n]+)",
                           re.MULTILINE)
_PY_DEF = re.compile(rf"\bdef[ \t]+{_NAME}[ \t]*{_PARENS}")
_PY_PARAM = re.compile(rf"(?:^|,)\s*\**(?P<name>{_NAME})\s*:\s*(?P<type>[^,=]+(?:\[[^\]]*\])?)")
_PY_RETURNS = re.compile(r"->\s*(?P<type>[^:]+?)\s*:\s*(?:#.*)?$")
# Wrappers an annotation's class sits in: `Optional[Cls]`, `Cls | None`.
_PY_OPTIONAL = re.compile(r"^(?:typing\.)?Optional\[(?P<inner>.*)\]$")


def _python_class(annotation: str) -> str | None:
    """The class a Python annotation names: `Cls`, `"Cls"`, `mod.Cls`, `Optional[Cls]`,
    `Cls | None`, `Cls[int]` (a generic); None for a container of them (`list[Cls]`)."""
    text = annotation.strip().strip("\"'").strip()
    if (optional := _PY_OPTIONAL.match(text)) is not None:
        text = optional.group("inner")
    parts = [p.strip().strip("\"'") for p in text.split("|") if p.strip() != "None"]
    if len(parts) != 1:
        return None
    head = parts[0].split("[", 1)[0].strip()
    return head if re.fullmatch(_DOTTED, head) else None


def _python(code: str) -> Iterator[Receiver]:
    line = _line_of(code)
    for match in _PY_CALLED.finditer(code):
        yield Receiver(match["name"], match["source"], True, line(match.start()))
    for match in _PY_WITH.finditer(code):
        yield Receiver(match["name"], match["source"], True, line(match.start()))
    for match in _PY_ANNOTATED.finditer(code):
        if (cls := _python_class(match["type"])) is not None:
            yield Receiver(match["name"], cls, False, line(match.start()))
    for match in _PY_DEF.finditer(code):
        for param in _PY_PARAM.finditer(match["params"]):
            if (cls := _python_class(param["type"])) is not None:
                yield Receiver(param["name"], cls, False, line(match.start()))


def _python_returns(signature: str) -> str | None:
    found = _PY_RETURNS.search(signature.strip())
    return _python_class(found["type"]) if found else None


# --- Java and TypeScript ----------------------------------------------------------------------

_JS_NAME = r"[A-Za-z_$][\w$]*"
_JS_DOTTED = rf"{_JS_NAME}(?:\.{_JS_NAME})*"
_JS_START = r"(?<![\w$.])"  # a name's start: not inside a name or a chain
# A class type: its last name capitalised, as both languages name classes; so neither
# primitives (`int`, `string`, `void`) nor keywords (`return x;`) pass for one.
_CLASS_TYPE = rf"(?P<type>(?:{_JS_NAME}\.)*[A-Z][\w$]*(?:{_GENERIC})?(?:\[\])*)"
# `x = new Cls(`, `this.x = new Cls<T>(`, `const x = new mod.Cls(`
_NEW = re.compile(
    rf"{_JS_START}(?P<name>(?:this\.)?{_JS_NAME})[ \t]*=[ \t]*new[ \t]+(?P<source>{_JS_DOTTED})"
    rf"[ \t]*(?:{_GENERIC})?[ \t]*\(")
# `const x = f(`, `let x = await api.get<T>(`, Java's `var x = f(`; `new Cls(` is _NEW's.
_DECLARED_CALL = re.compile(
    rf"\b(?:const|let|var)[ \t]+(?P<name>{_JS_NAME})[ \t]*=[ \t]*(?:await[ \t]+)?"
    rf"(?P<source>{_JS_DOTTED})[ \t]*(?:{_GENERIC})?[ \t]*\(")

# Standard types whose members are the standard library's: a variable of one holds no
# class of the code.
_JAVA_LIBRARY = frozenset({
    "List", "ArrayList", "LinkedList", "Map", "HashMap", "TreeMap", "LinkedHashMap",
    "ConcurrentHashMap", "Set", "HashSet", "TreeSet", "LinkedHashSet", "Collection", "Iterable",
    "Iterator", "Queue", "Deque", "ArrayDeque", "Optional", "Stream", "Future",
    "CompletableFuture"})
_TS_LIBRARY = frozenset({
    "Array", "ReadonlyArray", "Map", "Set", "WeakMap", "WeakSet", "Record", "Partial",
    "Readonly", "Required", "Pick", "Omit", "Promise", "Iterable", "AsyncIterable"})


def _class_of(type_: str, library: frozenset[str]) -> str | None:
    """The class a type names: `Foo<Bar>` is a Foo; none for an array (`Foo[]`) or a
    standard container (`List<Foo>`)."""
    if type_.endswith("]"):
        return None
    head = type_.split("<", 1)[0]
    return None if head.rsplit(".", 1)[-1] in library else head


# `Cls x =`, `final Other b)`, `Foo<Bar> x;`, `(Foo f : foos)`: a type and a name, then what
# ends a declaration (a local, a field, a parameter); modifiers before are lower case.
_JAVA_DECLARED = re.compile(
    rf"{_JS_START}{_CLASS_TYPE}[ \t]+(?P<name>{_JS_NAME})(?=[ \t]*(?:[=;,)]|:(?!:)))")
# `public static Foo bar(`: the type before the method's name.
_JAVA_RETURNS = re.compile(rf"{_JS_START}{_CLASS_TYPE}[ \t]+{_JS_NAME}[ \t]*\(")


def _java_names(name: str) -> tuple[str, str]:
    # A field is reached as `x` and as `this.x`, and no regex tells a field's declaration
    # from a local's; a `this.x` chain names only the field, so both names are bound.
    field = name.removeprefix("this.")
    return field, f"this.{field}"


def _java(code: str) -> Iterator[Receiver]:
    line = _line_of(code)
    for match in _NEW.finditer(code):
        if (cls := _class_of(match["source"], _JAVA_LIBRARY)) is not None:
            for name in _java_names(match["name"]):
                yield Receiver(name, cls, True, line(match.start()))
    for match in _DECLARED_CALL.finditer(code):
        yield Receiver(match["name"], match["source"], True, line(match.start()))
    # After the `new`s: `Base x = new Derived()` lets x reach Base's members only.
    for match in _JAVA_DECLARED.finditer(code):
        if (cls := _class_of(match["type"], _JAVA_LIBRARY)) is not None:
            for name in _java_names(match["name"]):
                yield Receiver(name, cls, False, line(match.start()))


def _java_returns(signature: str) -> str | None:
    found = _JAVA_RETURNS.search(signature)
    return _class_of(found["type"], _JAVA_LIBRARY) if found else None


# A TypeScript annotation's type, `| null` or `| undefined` aside.
_TS_TYPE = rf"{_CLASS_TYPE}(?:[ \t]*\|[ \t]*(?:null|undefined))*"
_TS_MODIFIERS = r"(?:(?:public|private|protected|readonly|static|declare|override)[ \t]+)*"
# `const x: Cls =`, `let x: Cls;`
_TS_DECLARED = re.compile(
    rf"\b(?:const|let|var)[ \t]+(?P<name>{_JS_NAME})[ \t]*:[ \t]*{_TS_TYPE}(?=[ \t]*[=;\n]|$)")
# A class's field, `private x: Cls;`; JavaScript reaches it as `this.x` only.
_TS_FIELD = re.compile(
    rf"^[ \t]*{_TS_MODIFIERS}(?P<name>{_JS_NAME})[?!]?[ \t]*:[ \t]*{_TS_TYPE}"
    rf"(?=[ \t]*[=;]|[ \t]*$)", re.MULTILINE)
# Parentheses anywhere: a call's arguments never read `name: Type` (an object's `{a: B}` is
# in braces, a `c ? a : B` has no name before its colon), so only parameters bind.
_TS_PARENS = re.compile(_PARENS)
# `(a: Cls, b?: Other, private readonly c: C, @Inject(T) d: D)`; a parameter with a
# modifier is the class's field too.
_TS_PARAM = re.compile(
    rf"(?:^|,)\s*(?:@{_JS_DOTTED}(?:\([^()]*\))?\s+)*(?P<field>{_TS_MODIFIERS})"
    rf"(?P<name>{_JS_NAME})\??\s*:\s*{_TS_TYPE}(?=\s*(?:[,=]|$))")
# `f(...): Cls {`, `async get(url: string): Promise<Cls> {`, `(a): Cls =>`
_TS_RETURNS = re.compile(rf"\)[ \t]*:[ \t]*{_CLASS_TYPE}")
_TS_PROMISE = re.compile(rf"Promise<[ \t]*{_CLASS_TYPE}")


def _typescript(code: str) -> Iterator[Receiver]:
    line = _line_of(code)
    for match in _NEW.finditer(code):
        if (cls := _class_of(match["source"], _TS_LIBRARY)) is not None:
            yield Receiver(match["name"], cls, True, line(match.start()))
    for match in _DECLARED_CALL.finditer(code):
        yield Receiver(match["name"], match["source"], True, line(match.start()))
    for match in _TS_DECLARED.finditer(code):
        if (cls := _class_of(match["type"], _TS_LIBRARY)) is not None:
            yield Receiver(match["name"], cls, False, line(match.start()))
    for match in _TS_FIELD.finditer(code):
        if (cls := _class_of(match["type"], _TS_LIBRARY)) is not None:
            yield Receiver(f"this.{match['name']}", cls, False, line(match.start()))
    for match in _TS_PARENS.finditer(code):
        for param in _TS_PARAM.finditer(match["params"]):
            if (cls := _class_of(param["type"], _TS_LIBRARY)) is not None:
                at = line(match.start())
                yield Receiver(param["name"], cls, False, at)
                if param["field"]:
                    yield Receiver(f"this.{param['name']}", cls, False, at)


def _typescript_returns(signature: str) -> str | None:
    found = _TS_RETURNS.search(signature)
    if found is None:
        return None
    # What an async function gives its caller's `await` is the promise's value.
    type_ = found["type"]
    if type_.startswith("Promise<") and (inner := _TS_PROMISE.match(type_)) is not None:
        type_ = inner["type"]
    return _class_of(type_, _TS_LIBRARY)


# --- Go ---------------------------------------------------------------------------------------

# Builtin types and allocators, and the keywords of type literals: none makes a type of
# the code's.
_GO_BUILTIN = frozenset({
    "any", "bool", "byte", "chan", "complex64", "complex128", "error", "float32", "float64",
    "func", "int", "int8", "int16", "int32", "int64", "interface", "make", "map", "new", "rune",
    "string", "struct", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr"})
# A named type, pointer and type arguments aside: `*pkg.T`, `List[int]`.
_GO_TYPE = rf"\*?(?P<type>{_DOTTED})(?:\[[^\[\]\n]*\])?"
# `x := NewT(`, `s, err := pkg.New(`, `x = &T{`, `x := pkg.T{`, `x := new(T)`; at most
# four names before `:=` keep a run of `a, a, a, ...` linear.
_GO_ASSIGN = re.compile(
    rf"(?<![\w.])(?P<name>{_NAME})(?:[ \t]*,[ \t]*{_NAME}){{0,3}}[ \t]*:?=[ \t]*"
    rf"(?:new\([ \t]*(?P<new>{_DOTTED})"
    rf"|&?[ \t]*(?P<source>{_DOTTED})(?:\[[^\[\]\n]*\])?[ \t]*(?P<open>[({{]))")
_GO_VAR = re.compile(rf"\bvar[ \t]+(?P<name>{_NAME})[ \t]+{_GO_TYPE}(?![\w.])")
# `func (s *Server) Serve(l net.Listener)`, `func New[T any](`, `func(w http.ResponseWriter`
_GO_FUNC = re.compile(
    rf"\bfunc[ \t]*(?:\((?P<receiver>[^()]*)\)[ \t]*)?(?:{_NAME}[ \t]*)?"
    rf"(?:\[[^\[\]]*\][ \t]*)?{_PARENS}")
_GO_PARAM = re.compile(rf"\s*(?P<name>{_NAME})(?:\s+{_GO_TYPE})?\s*")
# The first result: `*T`, `pkg.T`, `(*T, error)`, `(t *T, err error)`.
_GO_RESULT = re.compile(rf"[ \t]*(?:\([ \t]*(?:{_NAME}[ \t]+)?)?{_GO_TYPE}")


def _go_params(params: str) -> Iterator[tuple[str, str]]:
    """Each parameter's name and type: in `a, b *T` both are Ts. A part that reads as
    neither (a `func(...)` type's pieces, `...T`) binds nothing."""
    waiting: list[str] = []
    for part in params.split(","):
        found = _GO_PARAM.fullmatch(part)
        if found is None:
            waiting = []
        elif found["type"] is None:
            waiting.append(found["name"])
        else:
            yield from ((name, found["type"]) for name in [*waiting, found["name"]])
            waiting = []


def _go(code: str) -> Iterator[Receiver]:
    line = _line_of(code)
    for match in _GO_ASSIGN.finditer(code):
        # `T{` and `new(T)` make a T; `f(` gives what f returns (or a T, for a conversion).
        called = match["open"] == "("
        source = match["source"] or match["new"]
        if source.rsplit(".", 1)[-1] not in _GO_BUILTIN:
            yield Receiver(match["name"], source, called, line(match.start()))
    for match in _GO_VAR.finditer(code):
        if match["type"] not in _GO_BUILTIN:
            yield Receiver(match["name"], match["type"], False, line(match.start()))
    for match in _GO_FUNC.finditer(code):
        for own, params in ((True, match["receiver"] or ""), (False, match["params"])):
            for name, type_ in _go_params(params):
                if type_.rsplit(".", 1)[-1] not in _GO_BUILTIN:
                    yield Receiver(name, type_, False, line(match.start()), own=own)


def _go_returns(signature: str) -> str | None:
    func = _GO_FUNC.search(signature)
    found = _GO_RESULT.match(signature, func.end()) if func is not None else None
    if found is None or found["type"].rsplit(".", 1)[-1] in _GO_BUILTIN:
        return None
    return found["type"]


# --- Rust -------------------------------------------------------------------------------------

# A path, with a turbofish's type arguments where one may stand (`Vec::<u8>::new`).
_RS_PATH = rf"{_NAME}(?:::{_GENERIC})?(?:::{_NAME}(?:::{_GENERIC})?)*"
# Types whose members are the standard library's; `Self` needs the impl block to resolve.
_RUST_LIBRARY = frozenset({
    "Vec", "VecDeque", "HashMap", "HashSet", "BTreeMap", "BTreeSet", "Box", "Rc", "Arc",
    "Cell", "RefCell", "Mutex", "RwLock", "Option", "Result", "Cow", "Pin", "Self"})
# A type, `&`, `&mut`, a lifetime and `dyn`/`impl` aside (the borrow kept: it says which
# methods the value can call); capitalised, as Rust names types (so no primitive passes).
_RS_TYPE = (rf"(?P<borrow>&[ \t]*(?:'{_NAME}[ \t]+)?(?:mut[ \t]+)?)?(?:(?:dyn|impl)[ \t]+)?"
            rf"(?P<type>(?:{_NAME}::)*[A-Z]\w*(?:{_GENERIC})?)")
_RS_TYPE_AT = re.compile(_RS_TYPE)
# `let x = Type::new(`, `let mut x = path::f(`, `let x = Type {`
_RS_LET = re.compile(
    rf"\blet[ \t]+(?:mut[ \t]+)?(?P<name>{_NAME})[ \t]*=[ \t]*(?P<path>{_RS_PATH})[ \t]*"
    rf"(?P<open>[({{])")
_RS_LET_TYPED = re.compile(rf"\blet[ \t]+(?:mut[ \t]+)?(?P<name>{_NAME})[ \t]*:[ \t]*{_RS_TYPE}")
_RS_FN = re.compile(rf"\bfn[ \t]+{_NAME}[ \t]*(?:{_GENERIC})?[ \t]*{_PARENS}")
# A closure's parameters, `|date: NaiveDate|`, `move |a: &Arg, b|` (`a || b` has none).
_RS_CLOSURE = re.compile(r"\|(?P<params>[^|\n]+)\|")
_RS_PARAM = re.compile(rf"(?:^|,)\s*(?:mut\s+)?(?P<name>{_NAME})\s*:\s*{_RS_TYPE}(?=\s*(?:,|$))")
_RS_RETURNS = re.compile(rf"->[ \t]*{_RS_TYPE}")
# An `impl` block's header: `impl<T> Trait<T> for Type<T> {`.
RUST_IMPL = re.compile(r"^[ \t]*(?:unsafe[ \t]+)?impl\b(?P<head>[^{;]*)\{", re.MULTILINE)
# The type an `impl` names, a borrow of it too (`impl IntoIterator for &'a List`).
_RS_IMPL_TYPE = re.compile(r"\s*(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)?(?:\w+::)*(?P<type>[A-Z]\w*)")
# A method's `self` parameter, as it borrows the value: `&self`, `&'a mut self`, `mut self`.
_RS_SELF = re.compile(
    rf"\s*(?P<borrow>&[ \t]*(?:'{_NAME}[ \t]+)?(?:mut[ \t]+)?)?(?:mut[ \t]+)?self\b")
_BRACE = re.compile(r"[{}]")
_RS_RETURN_TEXT = re.compile(r"->(?P<type>[^{;]*?)(?:\bwhere\b|[{;]|$)")


def _rust_class(type_: str) -> str | None:
    return _class_of(type_.replace("::", "."), _RUST_LIBRARY)


def _rust_made(path: str) -> str | None:
    """What a constructor's path names: in `Type::new` and `Shape::Circle` (a variant) the
    type; in `module::f` the function (dotted)."""
    parts = path.split("::")
    # The caller looks a called name up: `new` is every type's, so the type says far more.
    if len(parts) > 1 and parts[-2][:1].isupper():
        parts.pop()
    return None if parts[-1] in _RUST_LIBRARY else ".".join(parts)


def _rust(code: str) -> Iterator[Receiver]:
    line = _line_of(code)
    for match in _RS_LET.finditer(code):
        made = _rust_made(without_turbofish(match["path"]))
        # A struct literal names a type; `loop {`, `unsafe {` name none.
        if made is not None and (match["open"] == "(" or made.rsplit(".", 1)[-1][:1].isupper()):
            yield Receiver(match["name"], made, match["open"] == "(", line(match.start()))
    for match in _RS_LET_TYPED.finditer(code):
        if (cls := _rust_class(match["type"])) is not None:
            yield Receiver(match["name"], cls, False, line(match.start()),
                           _rust_borrow(match["borrow"]))
    for match in itertools.chain(_RS_FN.finditer(code), _RS_CLOSURE.finditer(code)):
        for param in _RS_PARAM.finditer(match["params"]):
            if (cls := _rust_class(param["type"])) is not None:
                yield Receiver(param["name"], cls, False, line(match.start()),
                               _rust_borrow(param["borrow"]))
    yield from _rust_self(code)


def _rust_self(code: str) -> Iterator[Receiver]:
    """In a method of an `impl` block open at the end of ``code``, `self` holds the block's
    type, as the method's `self` parameter borrows it: its other methods, often in other
    files (a trait's `impl`, `spec_extend.rs`), are what `self.` calls."""
    block = _open_impl(code)
    if block is None:
        return
    method = _last(_RS_FN.finditer(code, block.end()))
    if method is None or (taken := _RS_SELF.match(method["params"])) is None:
        return
    body = code.find("{", method.end())
    if body >= 0 and still_open(code, body) and (type_ := rust_impl_type(block["head"])):
        yield Receiver("self", type_, False, _line_of(code)(method.start()),
                       _rust_borrow(taken["borrow"]), own=True)


def self_type(code: str) -> str | None:
    """What Rust's `Self` names at the end of ``code``: the type of the `impl` block open
    there (None outside one, and in every other language)."""
    block = _open_impl(code)
    return (rust_impl_type(block["head"]) or None) if block is not None else None


def _open_impl(code: str) -> re.Match[str] | None:
    block = _last(RUST_IMPL.finditer(code))
    return block if block is not None and still_open(code, block.end() - 1) else None


def _last(matches: Iterator[re.Match[str]]) -> re.Match[str] | None:
    return next(iter(collections.deque(matches, maxlen=1)), None)


def rust_impl_type(head: str) -> str:
    """`<T: Into<U>> Trait<T> for path::Type<T>` -> "Type": after `for`, else after the
    block's own type parameters."""
    if " for " in head:
        head = head.rsplit(" for ", 1)[1]
    elif head.lstrip().startswith("<"):
        depth = 0
        for at, char in enumerate(head):
            depth += {"<": 1, ">": -1}.get(char, 0)
            if depth == 0 and char == ">":
                head = head[at + 1:]
                break
    found = _RS_IMPL_TYPE.match(head)
    return found["type"] if found is not None else ""


def still_open(code: str, body: int) -> bool:
    """Whether the block opening at ``body`` is open at the end of ``code``: if it closed,
    the cursor is past it. Braces in strings and comments may mislead it."""
    depth = 0
    for brace in _BRACE.finditer(code, body):
        depth += 1 if brace[0] == "{" else -1
        if depth == 0:
            return False
    return True


def _rust_borrow(written: str | None) -> str:
    """`&'a mut ` -> "&mut"; `&` -> "&"; none -> ""."""
    if not written:
        return ""
    return "&mut" if written.rstrip().endswith("mut") else "&"


def _rust_returns(signature: str) -> str | None:
    found = _RS_RETURNS.search(signature)
    if found is None:
        return None
    type_ = found["type"]
    head = type_.split("<", 1)[0]
    # `?` and `.unwrap()` make the caller's value the first argument of a Result or Option.
    if head.rsplit("::", 1)[-1] in ("Result", "Option"):
        inner = _RS_TYPE_AT.match(type_, len(head) + 1)
        if inner is None:
            return None
        type_ = inner["type"]
    return _rust_class(type_)


# A struct's field with its type, one a line: `    pub(crate) map: IndexMap<K, V>,` (a
# `where` clause's `T: Clone` has a capitalised name, which no field has).
_RS_FIELD = re.compile(
    rf"^[ \t]*(?:pub(?:\([^)\n]*\))?[ \t]+)?(?P<name>[a-z_]\w*)[ \t]*:[ \t]*{_RS_TYPE}",
    re.MULTILINE)


def _rust_fields(definition: str) -> Iterator[tuple[str, str, str]]:
    for match in _RS_FIELD.finditer(definition):
        if (cls := _rust_class(match["type"])) is not None:
            yield match["name"], cls, _rust_borrow(match["borrow"])


_BINDINGS: dict[str, Callable[[str], Iterator[Receiver]]] = {
    "python": _python, "java": _java, "typescript": _typescript, "tsx": _typescript,
    "javascript": _typescript, "go": _go, "rust": _rust}
_RETURNS: dict[str, Callable[[str], str | None]] = {
    "python": _python_returns, "java": _java_returns, "typescript": _typescript_returns,
    "tsx": _typescript_returns, "javascript": _typescript_returns, "go": _go_returns,
    "rust": _rust_returns}


def _rust_return_text(signature: str) -> str:
    # All of it, which _RS_TYPE is not: `-> (Self, usize)`, a type over several lines.
    found = _RS_RETURN_TEXT.search(signature)
    return found["type"] if found is not None else ""


def _go_return_text(signature: str) -> str:
    func = _GO_FUNC.search(signature)
    return signature[func.end():].split("{", 1)[0] if func is not None else ""


def _java_return_text(signature: str) -> str:
    found = _JAVA_RETURNS.search(signature)
    return found["type"] if found is not None else ""


# The return type as a signature writes it, whole: `ParseResult<NaiveDate>`, `(*T, error)`.
_RETURN_TEXTS: dict[str, Callable[[str], str]] = {
    "rust": _rust_return_text, "go": _go_return_text, "java": _java_return_text}


def return_type_text(signature: str, language: str) -> str:
    """The return type ``signature`` writes, generics and all; empty where it writes none
    that these rules read (Rust, Go and Java)."""
    read = _RETURN_TEXTS.get(language)
    return read(signature) if read is not None else ""


def receivers(code: str, language: str) -> dict[str, Receiver]:
    """Each name's last binding the code shows; empty for a language without rules."""
    find = _BINDINGS.get(language)
    if find is None:
        return {}
    last: dict[str, Receiver] = {}
    for found in sorted(find(code), key=lambda r: r.line):
        last[found.name] = found
    return last


_FIELDS: dict[str, Callable[[str], Iterator[tuple[str, str, str]]]] = {"rust": _rust_fields}
# The languages whose classes' fields field_types reads.
FIELDS_READ = frozenset(_FIELDS)


def field_types(definition: str, language: str) -> dict[str, tuple[str, str]]:
    """Each field a class's definition (its text) declares of a class's type -> (that
    class, how the field holds it): `map: IndexMap<K, V>` -> ("IndexMap", ""). Empty for a
    language without rules."""
    read = _FIELDS.get(language)
    return {name: (cls, borrow) for name, cls, borrow in read(definition)} if read else {}


def returned_type(signature: str, language: str) -> str | None:
    """The class a function's signature (its text, decorators aside) says it returns."""
    read = _RETURNS.get(language)
    return read(signature) if read is not None else None
