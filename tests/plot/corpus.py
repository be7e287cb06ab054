"""A small generated repository for map tests: folders, languages and kinds to colour by."""

from __future__ import annotations

from pathlib import Path

from embedstore.ingest.indexer import IndexOptions, index_folder
from embedstore.store.store import Store
from tests.fakes import FAKE_SPEC

TOPICS = {
    "parsing": ["token", "grammar", "syntax", "lexer", "parse"],
    "storage": ["disk", "file", "cache", "write", "read"],
    "network": ["socket", "request", "response", "http", "retry"],
}


def write_repo(root: Path) -> Path:
    """3 folders x 2 Python files x 4 functions, a class per file, and a Markdown file."""
    for folder, words in TOPICS.items():
        for n in range(2):
            lines = [f"class {folder.title()}Thing{n}:", f'    """The {words[0]} {words[1]}."""',
                     "    kind = 1", ""]
            for i, word in enumerate(words[:4]):
                other = words[(i + n + 1) % len(words)]
                body = [f"    {word}_{j} = value * {j} + len('{other} {folder}')" for j in range(8)]
                lines += [f"def {word}_{other}_{n}(value):",
                          f'    """Handle the {word} and its {other}."""', *body,
                          f"    return {word}_7 + {i}", ""]
            (root / folder).mkdir(parents=True, exist_ok=True)
            (root / folder / f"{words[4]}_{n}.py").write_text("\n".join(lines))
    (root / "README.md").write_text(
        "# Project\n\nAbout tokens and sockets.\n\n## Storage\n\nDisk caches and files.\n"
    )
    return root


def indexed_store(tmp: Path, name: str = "proj") -> Store:
    """A store holding the generated repository as collection ``name`` (fake encoder)."""
    store = Store(tmp / "store")
    index_folder(store, write_repo(tmp / name), IndexOptions(name=name, encoder=FAKE_SPEC))
    return store
