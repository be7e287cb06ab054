"""The syntax-independent outline of a source file that code chunkers produce."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

# The kind of a bodiless declaration (TypeScript's overload signature): a block
# only while its definition of the same name follows, see :func:`fold_names`.
SIGNATURE_KIND = "signature"


@dataclass(frozen=True)
class Block:
    """One definition: lines ``start``..``end`` (1-based, inclusive).

    ``start`` includes the comments, decorators and attributes directly above
    the definition. ``header`` is its signature (e.g. ``class Cache(Base):``),
    the context of its members and of the pieces it is split into; ``head`` is
    the line the signature starts on. Only containers (classes, impls, namespaces) have
    ``children``: their member definitions, chunked on their own when the
    container is over budget.
    """

    start: int
    end: int
    kind: str
    symbol: str | None
    header: str
    head: int
    children: tuple[Block, ...] = ()


def signature(lines: list[str], first: int, last: int) -> tuple[int, str]:
    """The line a signature on lines ``first``..``last`` (1-based) starts on, and its text.

    The text is the lines stripped, without blank lines and without the
    decorator and attribute lines (``@Override``, ``#[inline]``,
    ``[Obsolete]``) that some grammars fold into a definition: they say little
    about what the members or continued pieces belong to.
    """
    rows = [(n, lines[n - 1].strip()) for n in range(first, last + 1)]
    while len(rows) > 1 and _is_annotation(rows[0][1]):
        rows.pop(0)
    kept = [(n, row) for n, row in rows if row]
    return (kept[0][0] if kept else first), "\n".join(row for _, row in kept)


def header_text(lines: list[str], first: int, last: int) -> str:
    """Signature lines ``first``..``last`` (1-based), stripped, without annotations."""
    return signature(lines, first, last)[1]


def _is_annotation(row: str) -> bool:
    # A whole line in brackets: C#'s attributes, never JS's `[key](args) {`.
    return row.startswith(("@", "#[")) or (row.startswith("[") and row.endswith("]"))


def qualified(owner: str | None, name: str | None) -> str | None:
    """``Owner.name`` for a member, the bare name at top level."""
    if owner and name:
        return f"{owner}.{name}"
    return name


def fold_names(blocks: Sequence[Block]) -> list[Block]:
    """One block per name: each run of definitions that repeat their names becomes one.

    A run is consecutive definitions of one scope (comments and statements
    between them included) in which every name occurs at least twice:
    ``@overload`` stubs and their implementation, a property's getter, setter
    and deleter, the branches of ``if WINDOWS: def getchar ... else: def
    getchar ...`` (interleaved with other names defined in both branches
    alike), TypeScript's overload signatures and their implementation. Apart
    they would be several results for one name, the stubs above the
    implementation. A run holding a container stays apart: its members need
    their own units. Signatures that fold into nothing are left out, as lines
    outside any definition. Members are folded too.
    """
    blocks = [
        replace(b, children=tuple(fold_names(b.children))) if b.children else b for b in blocks
    ]
    out: list[Block] = []
    done = 0
    for first, last in _runs(blocks):
        run = blocks[first : last + 1]
        if any(b.children for b in run) or all(b.kind == SIGNATURE_KIND for b in run):
            continue
        out += blocks[done:first]
        out.append(_fold(run))
        done = last + 1
    out += blocks[done:]
    return [b for b in out if b.kind != SIGNATURE_KIND]


def _runs(blocks: Sequence[Block]) -> list[tuple[int, int]]:
    """Index ranges (first, last) of the runs of repeated names, in order."""
    seen: dict[str, tuple[int, int]] = {}
    for index, block in enumerate(blocks):
        if block.symbol is not None:
            seen[block.symbol] = (seen.get(block.symbol, (index, index))[0], index)
    runs: list[tuple[int, int]] = []
    for first, last in sorted(span for span in seen.values() if span[1] > span[0]):
        if runs and first <= runs[-1][1]:  # interleaved names: one run
            runs[-1] = (runs[-1][0], max(last, runs[-1][1]))
        else:
            runs.append((first, last))
    repeated = Counter(b.symbol for b in blocks)
    # A name defined once inside a run would be swallowed by the run: no fold there.
    return [
        (first, last)
        for first, last in runs
        if all(b.symbol is not None and repeated[b.symbol] > 1 for b in blocks[first : last + 1])
    ]


def _fold(run: Sequence[Block]) -> Block:
    """One block for a run, led by the definition with the longest body (the first of equals).

    That is the implementation rather than its ``@overload`` stubs, whose
    body is ``...`` on the signature's line, and a property's getter.
    """
    main = max((b for b in run if b.kind != SIGNATURE_KIND), key=_body_lines)
    symbols = ", ".join(dict.fromkeys(b.symbol for b in run if b.symbol))
    end = max(b.end for b in run)
    return Block(run[0].start, end, main.kind, symbols, main.header, main.head)


def _body_lines(block: Block) -> int:
    """Lines of a definition below its signature."""
    return block.end - block.head + 1 - len(block.header.split("\n"))
