"""The code-at-cursor benchmark's cases, found per language by a parser of the benchmark's own.

One module per language knows that language's definitions, imports and uses;
``FINDERS`` is the only place that names them.
"""

from __future__ import annotations

from embedstore.evaluation.completion_cases import go, java, javascript, python, rust
from embedstore.evaluation.completion_cases.common import Definition, FileUses, Finder, Use

# Language (embedstore.languages' name) -> its case finder.
FINDERS: dict[str, Finder] = {
    "python": python.find,
    "go": go.find,
    "typescript": javascript.find,
    "tsx": javascript.find,
    "javascript": javascript.find,
    "rust": rust.find,
    "java": java.find,
}

__all__ = ["FINDERS", "Definition", "FileUses", "Finder", "Use"]
