"""Every line of a code-at-cursor answer earns its place, over the benchmark's own cursors.

The cursors are those of bench/completion.py (embedstore.evaluation.completion) on a
package of this Python's standard library; the definitions an answer shows are read
with Python's ``ast``, not the symbol table code-at-cursor reads, so its own mistakes
cannot grade it.
"""

from __future__ import annotations

import ast
import email
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from embedstore.evaluation.completion import build_cases
from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.retrieval.code_context import context_for_code
from embedstore.retrieval.context import RagContext
from embedstore.store.collection import Collection
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC, install_fake_encoder

BUDGETS = (256, 2048)
CASES = 30


@dataclass(frozen=True)
class Shown:
    """A function's or class's lines as ``ast`` reads them."""

    decorators: tuple[int, ...]
    keyword: int  # the def/class line
    signature_end: int  # the line its body starts after (the `:`)
    setter_of: str | None  # `@name.setter`: the property it sets
    getter_of: str | None  # `@property`: its own name


def definitions(source: str) -> list[Shown]:
    lines = source.split("\n")
    found: list[Shown] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        head = node.body[0]
        first = min([head.lineno, *(d.lineno for d in getattr(head, "decorator_list", []))])
        end = first if first == node.lineno else first - 1
        while end > node.lineno and lines[end - 1].strip()[:1] in ("", "#"):
            end -= 1  # blank lines and comments between the `:` and the body
        setter = next((d.value.id for d in node.decorator_list
                       if isinstance(d, ast.Attribute) and d.attr in ("setter", "deleter")
                       and isinstance(d.value, ast.Name)), None)
        getter = node.name if any(isinstance(d, ast.Name) and d.id == "property"
                                  for d in node.decorator_list) else None
        found.append(Shown(tuple(d.lineno for d in node.decorator_list), node.lineno, end,
                           setter, getter))
    return found


def flaws(answer: RagContext, root: Path) -> list[str]:
    """What an answer shows that it should not: half signatures, lone setters, lone
    decorators."""
    found: list[str] = []
    for block in (b for b in answer.blocks if b.path.endswith(".py")):
        # A long signature joined into one line stands for the lines it covers.
        shown = set(block.lines).union(
            *(range(first, last + 1) for first, last in block.covers.items()))
        where = f"{block.path}:{block.start_line}"
        defs = definitions((root / block.path).read_text())
        getters = {d.getter_of for d in defs if d.keyword in shown and d.getter_of}
        for d in defs:
            if any(n in shown for n in d.decorators) and d.keyword not in shown:
                found.append(f"{where}: decorator without its definition (line {d.keyword})")
            if d.keyword in shown:
                missing = [n for n in (*d.decorators, *range(d.keyword, d.signature_end + 1))
                           if n not in shown]
                if missing:
                    found.append(f"{where}: line {d.keyword}'s header lacks lines {missing}")
                if d.setter_of and d.setter_of not in getters:
                    found.append(f"{where}: setter of {d.setter_of} without its getter")
    return found


@pytest.fixture(scope="module")
def email_package(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Collection]:
    install_fake_encoder()
    root = tmp_path_factory.mktemp("stdlib") / "email"
    shutil.copytree(Path(email.__file__).parent, root,
                    ignore=shutil.ignore_patterns("__pycache__"))
    store = Store(root.parent / "store")
    index_folder(store, root, IndexOptions(name="email", encoder=FAKE_SPEC))
    return root, store.open("email")


def test_no_answer_shows_half_a_signature_a_lone_setter_or_a_lone_decorator(
    email_package: tuple[Path, Collection],
) -> None:
    root, collection = email_package
    cases = build_cases(root, seed=0, max_cases=CASES)
    assert len(cases) == CASES
    count = collection.query_encoder.count_tokens
    problems: list[str] = []
    for case in cases:
        for budget in BUDGETS:
            answer = context_for_code(collection, case.code, path=case.path, max_tokens=budget)
            # What the answer says it costs is what its text costs, headers and fences too.
            assert answer.tokens == count([answer.text])[0] - 2 <= budget
            problems += [f"{case.path}:{case.line} @{budget}: {p}" for p in flaws(answer, root)]
    assert problems == []
