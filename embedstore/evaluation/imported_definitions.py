"""A code-at-cursor baseline with no search: the signatures of what the file imports.

The cursor's file's imports above the cursor (as the collection's symbol table
stores them), in import order, resolve to files of the collection; each gives
the signatures of the definitions it imports (an imported name and its members),
or of all its definitions when a whole module or package is imported. They are
packed in that order while the context fits the budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from embedstore.chunking.symbols import ImportRef, resolve_import
from embedstore.chunking.types import TokenCounter
from embedstore.languages import detect_language
from embedstore.retrieval.context import ContextBlock, RagContext, render
from embedstore.store import symbol_table

if TYPE_CHECKING:
    from embedstore.store.collection import Collection
    from embedstore.store.symbol_table import DefinitionRow

# Left of the budget when the context stops taking signatures: no signature is that small.
_NEARLY_FULL = 8


def imported_signatures(
    collection: Collection, code: str, path: str, budget: int, count_tokens: TokenCounter
) -> RagContext:
    """The signatures of what ``path``'s imports above the cursor (after ``code``) define."""
    conn = collection.conn
    language = detect_language(path)
    paths = frozenset(symbol_table.paths(conn))
    cursor_line = code.count("\n") + 1
    blocks: dict[str, ContextBlock] = {}
    used = 0
    for row in symbol_table.imports_of(conn, path):
        if row.line >= cursor_line:
            break
        ref = ImportRef(row.module, row.name, row.alias, row.level, row.line)
        for target in resolve_import(ref, path, language, paths):
            if target == path:
                continue
            lines = symbol_table.file_lines(conn, target)
            for definition in _imported(symbol_table.definitions_in(conn, [target]), ref.name):
                signature = {n: lines.get(n, "") for n in range(
                    definition.start_line, max(definition.signature_end_line,
                                               definition.start_line) + 1)}
                block = blocks.get(target)
                grown = ContextBlock(target, definition.language,
                                     {**(block.lines if block else {}), **signature})
                cost = count_tokens([render([*(b for b in blocks.values() if b is not block),
                                             grown])])[0]
                if cost <= budget:
                    blocks[target], used = grown, cost
                if used >= budget - _NEARLY_FULL:
                    return _context(code, blocks, used, budget)
    return _context(code, blocks, used, budget)


def _imported(rows: list[DefinitionRow], name: str | None) -> list[DefinitionRow]:
    """The definitions an import of ``name`` brings: that name and its members, or all of
    them when it names no definition of the file (a module, a package, a wildcard)."""
    if name is None or name == "*":
        return rows
    named = [r for r in rows if r.qualname == name or r.qualname.startswith(name + ".")]
    return named or rows


def _context(code: str, blocks: dict[str, ContextBlock], used: int, budget: int) -> RagContext:
    ordered = list(blocks.values())
    return RagContext(code[-200:], render(ordered), used, budget, ordered)
