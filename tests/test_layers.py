"""The architecture, checked: layers import only downwards, and no import cycle exists.

Every import counts, type-only and function-level ones included (issue 22).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Source folder -> import name (see pyproject's package-dir).
FOLDERS = {"embedstore": "embedstore", "indexes": "embedstore.indexes",
           "api": "embedstore.api", "cli": "embedstore.cli"}
# Lower layers first; a module may import its own layer and those before it.
LAYERS = [
    ["embedstore.errors", "embedstore.languages", "embedstore.lexical", "embedstore.progress",
     "embedstore.atomic_files"],
    ["embedstore.chunking", "embedstore.encoders", "embedstore.indexes"],
    ["embedstore.store"],
    ["embedstore.ingest"],
    ["embedstore.retrieval"],
    ["embedstore.evaluation", "embedstore.tuning", "embedstore.plot"],
    ["embedstore.api", "embedstore.cli", "embedstore.__main__"],
]
MAX_LOOSE_MODULES = 8


def module_files() -> dict[str, Path]:
    found = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def imports_of(path: Path, name: str, modules: set[str]) -> set[str]:
    """The embedstore modules ``name`` imports, anywhere in the file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                       for a in node.names]
        else:
            continue
        out.update(t for t in targets if t in modules and t != "embedstore")
    return out


def layer_of(module: str) -> int:
    for rank, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS")


def graph() -> dict[str, set[str]]:
    files = module_files()
    names = set(files)
    # The package root only re-exports, lazily; it is no layer's dependency.
    return {m: imports_of(p, m, names) - {m} for m, p in files.items() if m != "embedstore"}


def test_layers_import_only_downwards() -> None:
    upward = sorted(
        f"{m} -> {t}" for m, targets in graph().items() for t in targets
        if layer_of(t) > layer_of(m)
    )
    assert upward == []


def test_the_store_knows_nothing_of_ingest_or_retrieval() -> None:
    for module, targets in graph().items():
        if module.startswith("embedstore.store"):
            assert not {t for t in targets if t.startswith(("embedstore.retrieval",
                                                            "embedstore.ingest"))}, module


def test_no_import_cycle() -> None:
    edges = graph()
    state: dict[str, int] = {}  # 1: on the path, 2: done
    cycles: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative depth-first search: the walk never recurses on the call stack.
        path = [start]
        stack = [iter(sorted(edges.get(start, ())))]
        state[start] = 1
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(child) == 1:
                cycles.append([*path[path.index(child):], child])
            elif child not in state:
                state[child] = 1
                path.append(child)
                stack.append(iter(sorted(edges.get(child, ()))))

    for module in sorted(edges):
        if module not in state:
            visit(module)
    assert cycles == []


def test_few_loose_modules_in_the_core_package() -> None:
    loose = [p.name for p in (ROOT / "embedstore").glob("*.py")]
    assert len(loose) <= MAX_LOOSE_MODULES, loose
