"""Mine (doc sentence -> function) pairs from a repository's source files.

CodeSearchNet-style: a function whose docstring (Python) or doc comment (see
:mod:`embedstore.evaluation.doc_comments`) has a first sentence of enough
words gives a query (that sentence); the function is indexed with that doc
removed, beside the rest of its file, so the corpus is the real code base
minus the answers' own wording.
"""

from __future__ import annotations

import ast
import random
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

from embedstore.evaluation.completion_cases.python import is_overload_stub
from embedstore.evaluation.doc_comments import DOC_STYLES, documented_functions
from embedstore.ingest.sources import walk_sources

MIN_WORDS = 5
# Languages whose docs give queries; their files make up the corpus.
MINED_LANGUAGES = frozenset({"python", *DOC_STYLES})
# A full stop then a space ends a sentence, except after an abbreviation that never
# ends one ("if it has already resolved, e.g. from a cache" is one sentence).
_ABBREVIATIONS = ("e.g", "i.e", "cf", "vs")
_SENTENCE_END = re.compile(
    "".join(rf"(?<!\b{re.escape(a)})" for a in _ABBREVIATIONS) + r"\.(\s|$)|\n\s*\n",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class EvalQuery:
    query: str
    path: str  # relative, in the stripped copy
    start_line: int  # the function's lines in the stripped copy, 1-based inclusive
    end_line: int
    symbol: str
    def_line: int  # its `def` line (its name's elsewhere): what a strict hit must contain


def first_sentence(docstring: str) -> str:
    """Up to the first full stop (or blank line), whitespace collapsed."""
    match = _SENTENCE_END.search(docstring)
    head = docstring[: match.start()] if match else docstring
    return " ".join(head.split())


def build_corpus(
    repo: Path, dest: Path, *, seed: int = 0, max_queries: int | None = None
) -> list[EvalQuery]:
    """Write doc-stripped copies of the mined languages' files into ``dest``; return the queries.

    Every file of :data:`MINED_LANGUAGES` is written (stripped where it has
    queries); queries that share their sentence are dropped (:func:`unambiguous`)
    and the rest sampled (seeded) down to ``max_queries`` afterwards, so all the
    repository's code stays a distractor for every query.
    """
    queries: list[EvalQuery] = []
    for source in walk_sources(repo):
        if source.language not in MINED_LANGUAGES:
            continue
        stripped, found = strip_docs(source.text, source.rel_path, source.language)
        target = dest / source.rel_path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(stripped)
        queries.extend(found)
    queries = unambiguous(queries)
    if max_queries is not None and len(queries) > max_queries:
        queries = sorted(random.Random(seed).sample(queries, max_queries),
                         key=lambda q: (q.path, q.start_line))
    return queries


def unambiguous(queries: list[EvalQuery]) -> list[EvalQuery]:
    """The queries whose sentence no other query of the repository has.

    One doc on several definitions (a package's bundle beside its sources, generated
    twins such as testify's `Greater` and `Greaterf`, nom's `complete` and `streaming`
    parsers) describes each of them equally, so a search cannot tell which one is
    meant. Their docs are still stripped: the corpus stays the same.
    """
    counts = Counter(q.query for q in queries)
    return [q for q in queries if counts[q.query] == 1]


@dataclass(frozen=True)
class _Removal:
    first: int  # the doc's lines, 1-based inclusive
    last: int
    keep_pass: bool  # the body was only the docstring: leave `pass` so the code stays valid

    @property
    def removed(self) -> int:
        return self.last - self.first + 1 - (1 if self.keep_pass else 0)


@dataclass(frozen=True)
class _Target:
    """A query and its function, with lines as in the original file."""

    query: str
    symbol: str
    start_line: int
    end_line: int
    def_line: int
    doc: _Removal


def strip_docs(text: str, rel_path: str, language: str) -> tuple[str, list[EvalQuery]]:
    """The file without its query functions' docs, and those queries.

    Python's docstrings, or the doc comments of :data:`MINED_LANGUAGES`'
    other languages, under the same rules. A doc comment's first word is
    dropped when it is the function's own name (Go's convention: "Load reads
    the settings..."), which would hand lexical search the answer.
    """
    if language == "python":
        return strip_docstrings(text, rel_path)
    picked: list[_Target] = []
    for found in documented_functions(text, language):
        words = first_sentence(found.doc).split()
        if words and words[0] == found.symbol:
            words = words[1:]
        if len(words) < MIN_WORDS:
            continue
        (first, last), (doc_first, doc_last) = found.rows, found.doc_rows
        doc = _Removal(doc_first + 1, doc_last + 1, keep_pass=False)
        picked.append(
            _Target(" ".join(words), found.symbol, first + 1, last + 1, found.name_row + 1, doc)
        )
    return _strip(text, rel_path, picked)


def strip_docstrings(text: str, rel_path: str) -> tuple[str, list[EvalQuery]]:
    """The Python file without the query functions' docstrings, and those queries."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return text, []
    picked: list[_Target] = []
    above = _statements_above(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        doc = ast.get_docstring(node)
        sentence = first_sentence(doc or "")
        if len(sentence.split()) < MIN_WORDS:
            continue
        expr = node.body[0]
        removal = _Removal(expr.lineno, expr.end_lineno or expr.lineno, len(node.body) == 1)
        start = _first_line(node)
        # Its `@overload` stubs right above it are declarations of this one function.
        stub = above.get(node)
        while _is_overload_of(stub, node.name):
            start = _first_line(stub)
            stub = above.get(stub)
        end = node.end_lineno or node.lineno
        picked.append(_Target(sentence, node.name, start, end, node.lineno, removal))
    return _strip(text, rel_path, picked)


def _statements_above(tree: ast.AST) -> dict[ast.AST, ast.stmt]:
    """Each statement -> the statement right before it in the same block."""
    above: dict[ast.AST, ast.stmt] = {}
    for parent in ast.walk(tree):
        for block in ("body", "orelse", "finalbody"):
            statements = getattr(parent, block, None)
            if isinstance(statements, list):
                above.update(zip(statements[1:], statements, strict=False))
    return above


def _first_line(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return min([d.lineno for d in node.decorator_list] + [node.lineno])


def _is_overload_of(
    node: ast.AST | None, name: str
) -> TypeGuard[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Whether ``node`` is an `@overload` stub of ``name``."""
    return (isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
            and is_overload_stub(node))


def _strip(text: str, rel_path: str, picked: list[_Target]) -> tuple[str, list[EvalQuery]]:
    """``text`` without the targets' docs, and their queries with lines renumbered."""
    if not picked:
        return text, []
    lines = text.split("\n")
    removals = sorted((t.doc for t in picked), key=lambda r: r.first, reverse=True)
    for r in removals:
        indent = re.match(r"\s*", lines[r.first - 1])
        replacement = [f"{indent.group(0) if indent else ''}pass"] if r.keep_pass else []
        lines[r.first - 1 : r.last] = replacement

    def shift(line: int, inclusive: bool) -> int:
        """``line``'s number after the removals above it (and at it, when ``inclusive``)."""
        return line - sum(
            r.removed for r in removals if r.last < line or (inclusive and r.last == line)
        )

    queries = [
        EvalQuery(
            query=t.query,
            path=rel_path,
            start_line=shift(t.start_line, False),
            end_line=shift(t.end_line, True),
            symbol=t.symbol,
            def_line=shift(t.def_line, False),
        )
        for t in picked
    ]
    return "\n".join(lines), queries
