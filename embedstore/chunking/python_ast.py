"""Outlines of Python files from the standard library's ``ast``.

The fallback for when the tree-sitter grammar is not installed, or when it
reports errors on code the running interpreter accepts (newer syntax than
the grammar knows). It finds the same blocks as the tree-sitter walker.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from embedstore.chunking.outline import Block, qualified, signature

_Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def outline(text: str) -> list[Block] | None:
    """The definitions of ``text``; None when it is not valid Python.

    Also None for old Mac line ends (a lone ``\\r``): Python counts them as
    line breaks, so its line numbers would not be the file's lines.
    """
    if "\r" in text.replace("\r\n", ""):
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):  # ValueError: source with null bytes
        return None
    return _collect(tree.body, text.split("\n"), None, False)


def _collect(
    statements: Iterable[ast.stmt], lines: list[str], owner: str | None, member: bool
) -> list[Block]:
    blocks: list[Block] = []
    taken = 0  # last line owned by a block
    for node in statements:
        if isinstance(node, _Definition):
            found = [_block(node, lines, owner, member, taken)]
        else:
            found = _collect(_nested(node), lines, owner, member)
        for block in found:
            if block.start > taken:
                blocks.append(block)
                taken = block.end
    return blocks


def _nested(node: ast.stmt) -> list[ast.stmt]:
    """Statements inside a compound statement (if/try/with/match...), in order."""
    nested: list[ast.stmt] = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            nested.append(child)
        elif isinstance(child, ast.ExceptHandler | ast.match_case):
            nested.extend(child.body)
    return nested


def _block(
    node: _Definition, lines: list[str], owner: str | None, member: bool, taken: int
) -> Block:
    start = _first_line(node)
    # Comment lines directly above belong to the definition, as in the tree-sitter walker.
    while start - 1 > taken and lines[start - 2].strip().startswith("#"):
        start -= 1
    symbol = qualified(owner, node.name)
    head, header = signature(lines, node.lineno, _signature_end(node, lines))
    if isinstance(node, ast.ClassDef):
        children = tuple(_collect(node.body, lines, symbol, True))
        return Block(start, _end(node, lines), "class", symbol, header, head, children)
    kind = "method" if member else "function"
    return Block(start, _end(node, lines), kind, symbol, header, head)


def _signature_end(node: _Definition, lines: list[str]) -> int:
    """The line of the signature's colon: the last code line before the body."""
    first = node.body[0]
    # `def f(a,\n      b): pass`: the body shares the signature's last line
    # (col_offset counts UTF-8 bytes).
    if lines[first.lineno - 1].encode()[: first.col_offset].strip():
        return first.lineno
    last = max(node.lineno, _first_line(first) - 1)
    while last > node.lineno and _is_filler(lines[last - 1]):
        last -= 1
    return last


def _is_filler(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def _first_line(node: ast.stmt) -> int:
    """Where a statement starts, decorators included."""
    decorators = node.decorator_list if isinstance(node, _Definition) else []
    return min([node.lineno] + [decorator.lineno for decorator in decorators])


def _end(node: _Definition, lines: list[str]) -> int:
    """The last line of a definition, with the comments that end its body.

    ``ast`` stops at the last statement; comments after it that are indented
    deeper than the definition are still part of it, as tree-sitter finds.
    """
    end = node.end_lineno or node.lineno
    line = end + 1
    while line <= len(lines):
        text = lines[line - 1]
        if text.strip():
            indent = len(text) - len(text.lstrip())
            if not text.lstrip().startswith("#") or indent <= node.col_offset:
                break
            end = line
        line += 1
    return end
