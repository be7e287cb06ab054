"""What class a name of the code before the cursor holds, as that code shows it.

The next `x.` of a line is a member of x's class; knowing the class, code-at-cursor
shows its likely members first (DraCo, ACL 2024, follows dataflow the same way, much
further). One pass over the text, no parse, per language:

- `x = Cls(...)`, `x = mod.Cls(...)`, `with Cls(...) as x`, `self.attr = Cls(...)`:
  x holds what calling Cls gives;
- `x = f(...)`, `resp = session.get(...)`: what f's (get's) return annotation says,
  which the caller reads from the definitions (:func:`returned_type`);
- `def f(x: Cls)`, `x: Cls = ...`: the annotation's class.

A later binding of a name overrides an earlier one; nothing here knows which names
are classes: the caller looks them up.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Receiver:
    """``name`` (a variable or ``self.attr``) holds what ``source`` makes: an instance of the
    class ``source`` names (``called`` false: an annotation), or what calling ``source``
    returns (a class's instance, or a function's return annotation's)."""

    name: str
    source: str
    called: bool
    line: int  # 1-based, where the binding is written


_NAME = r"[A-Za-z_]\w*"
_DOTTED = rf"{_NAME}(?:\.{_NAME})*"
# `x = Cls(`, `self.x: T = await mod.f(`
_PY_CALLED = re.compile(
    rf"^[ \t]*(?P<name>(?:self\.)?{_NAME})[ \t]*(?::[^=\n]*)?=[ \t]*(?:await[ \t]+)?"
    rf"(?P<source>{_DOTTED})[ \t]*\(", re.MULTILINE)
_PY_WITH = re.compile(
    rf"\bwith[ \t]+(?:await[ \t]+)?(?P<source>{_DOTTED})[ \t]*\([^\n]*?\)[ \t]+as[ \t]+"
    rf"(?P<name>{_NAME})")
# `x: T` at a statement's start (a variable) or in a `def`'s parameters.
_PY_ANNOTATED = re.compile(rf"^[ \t]*(?P<name>(?:self\.)?{_NAME})[ \t]*:[ \t]*(?P<type>[^=\n]+)",
                           re.MULTILINE)
_PY_DEF = re.compile(rf"\bdef[ \t]+{_NAME}[ \t]*\((?P<params>[^()]*(?:\([^()]*\)[^()]*)*)\)")
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
    def line(at: int) -> int:
        return code.count("\n", 0, at) + 1

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


_BINDINGS: dict[str, Callable[[str], Iterator[Receiver]]] = {"python": _python}
_RETURNS: dict[str, Callable[[str], str | None]] = {"python": _python_returns}


def receivers(code: str, language: str) -> dict[str, Receiver]:
    """Each name's last binding the code shows; empty for a language without rules."""
    find = _BINDINGS.get(language)
    if find is None:
        return {}
    last: dict[str, Receiver] = {}
    for found in sorted(find(code), key=lambda r: r.line):
        last[found.name] = found
    return last


def returned_type(signature: str, language: str) -> str | None:
    """The class a function's signature (its text, decorators aside) says it returns."""
    read = _RETURNS.get(language)
    return read(signature) if read is not None else None
