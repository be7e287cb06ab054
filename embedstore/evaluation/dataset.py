"""Mine (docstring sentence -> function) pairs from a repository's Python files.

CodeSearchNet-style: a function whose docstring's first sentence has enough
words gives a query (that sentence); the function is indexed with that
docstring removed, beside the rest of its file, so the corpus is the real
code base minus the answers' own wording.
"""

from __future__ import annotations

import ast
import random
import re
from dataclasses import dataclass
from pathlib import Path

from embedstore.sources import walk_sources

MIN_WORDS = 5
_SENTENCE_END = re.compile(r"\.(\s|$)|\n\s*\n")


@dataclass(frozen=True)
class EvalQuery:
    query: str
    path: str  # relative, in the stripped copy
    start_line: int  # the function's lines in the stripped copy, 1-based inclusive
    end_line: int
    symbol: str
    def_line: int  # its `def` line: what a hit must contain under the strict rule


def first_sentence(docstring: str) -> str:
    """Up to the first full stop (or blank line), whitespace collapsed."""
    match = _SENTENCE_END.search(docstring)
    head = docstring[: match.start()] if match else docstring
    return " ".join(head.split())


def build_corpus(
    repo: Path, dest: Path, *, seed: int = 0, max_queries: int | None = None
) -> list[EvalQuery]:
    """Write docstring-stripped copies of the Python files into ``dest``; return the queries.

    Every Python file is written (stripped where it has queries), and queries
    are sampled (seeded) down to ``max_queries`` afterwards, so all the
    repository's code stays a distractor for every query.
    """
    queries: list[EvalQuery] = []
    for source in walk_sources(repo):
        if source.language != "python":
            continue
        stripped, found = strip_docstrings(source.text, source.rel_path)
        target = dest / source.rel_path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(stripped)
        queries.extend(found)
    if max_queries is not None and len(queries) > max_queries:
        queries = sorted(random.Random(seed).sample(queries, max_queries),
                         key=lambda q: (q.path, q.start_line))
    return queries


@dataclass(frozen=True)
class _Removal:
    first: int  # docstring lines, 1-based inclusive
    last: int
    keep_pass: bool  # the body was only the docstring: leave `pass` so the code stays valid

    @property
    def removed(self) -> int:
        return self.last - self.first + 1 - (1 if self.keep_pass else 0)


def strip_docstrings(text: str, rel_path: str) -> tuple[str, list[EvalQuery]]:
    """The file without the query functions' docstrings, and those queries."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return text, []
    picked: list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, str, _Removal]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        doc = ast.get_docstring(node)
        sentence = first_sentence(doc or "")
        if len(sentence.split()) < MIN_WORDS:
            continue
        expr = node.body[0]
        removal = _Removal(expr.lineno, expr.end_lineno or expr.lineno, len(node.body) == 1)
        picked.append((node, sentence, removal))
    if not picked:
        return text, []
    lines = text.split("\n")
    removals = sorted((r for _, _, r in picked), key=lambda r: r.first, reverse=True)
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
            query=sentence,
            path=rel_path,
            start_line=shift(min([d.lineno for d in node.decorator_list] + [node.lineno]), False),
            end_line=shift(node.end_lineno or node.lineno, True),
            symbol=node.name,
            def_line=shift(node.lineno, False),
        )
        for node, sentence, _ in picked
    ]
    return "\n".join(lines), queries
