"""The last step of code-at-cursor ranking: a linear model over each candidate's evidence.

code_context.py scores each candidate by hand-set signals (import, nearness, receiver...),
one at a time. What those scores leave out is how the signals trade against each other and
against what a candidate is: a method or a constant, a member of a class of eighty or a
free function, a name defined once or in every module, test code or not, a name the last
lines already use (the prompt shows how to call it) or one whose words they share. Weights
for all of them at once are fitted by ``bench/fit_ranker.py`` on the tuning sets (the
Python and Rust standard libraries, train-multi's Rust, Go and TypeScript, the JDK): the
order that puts the next line's own definition earliest (a conditional logit over each
cursor's candidates).
"""

from __future__ import annotations

import itertools
import math
import posixpath
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from embedstore.languages import is_test_code
from embedstore.lexical import plain_names, split_identifier
from embedstore.store import symbol_table
from embedstore.store.symbol_table import DefinitionRow

# The lines above the cursor whose names say what the code is doing now.
RECENT_LINES = 12

_KINDS = ("function", "method", "type", "constant", "variable")

FEATURES = (
    "score", "log_score", "log_rank", *_KINDS,
    "member", "log_members", "test", "log_namesakes", "word_share", "recent", "held",
    "log_uses", "folder_share", "named",
)
# Fitted by bench/fit_ranker.py (bench/results/ranker_fit.json); "score" leads.
WEIGHTS = {
    "score": 0.606, "log_score": 0.845, "log_rank": -0.508, "function": 0.654,
    "method": -0.575, "type": -1.529, "constant": 0.478, "variable": 0.222, "member": -0.777,
    "log_members": -0.132, "test": -0.652, "log_namesakes": -0.281, "word_share": 1.035,
    "recent": -1.628, "held": 1.0, "log_uses": 0.127, "folder_share": 0.529, "named": -0.401,
}


@dataclass
class Candidate:
    """A definition of another file that the code may need, with its evidence."""

    row: DefinitionRow
    score: float = 0.0
    members: list[DefinitionRow] = field(default_factory=list)
    held: bool = False  # a member of a class that a name of the code holds (code_context)
    # Reached itself through a name the code writes: an import, a module's path, a name it
    # uses (not as a member of a class it names).
    named: bool = False
    # The code's names it is a member of: a module's alias or path (`m`, `crate.rt`), a
    # class's name (`Command`), a name holding an instance (`cmd`, `self.enc`).
    through: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Census:
    """What the collection says of the candidates' names."""

    namesakes: dict[str, int] = field(default_factory=dict)  # definitions bearing each
    uses: dict[str, int] = field(default_factory=dict)  # reached as a member, any head


def census(conn: sqlite3.Connection, ranked: Sequence[Candidate]) -> Census:
    names = sorted({cand.row.name for cand in ranked})
    return Census(symbol_table.name_counts(conn, names), symbol_table.uses_of(conn, names))


def features(
    ranked: Sequence[Candidate], code: str, counts: Census, path: str | None = None
) -> np.ndarray:
    """One row per candidate (in its evidence order), one column per FEATURES name.

    ``counts``: what ``census()`` counts for them; ``path``: the edited file's.
    """
    recent = set(plain_names("\n".join(code.split("\n")[-RECENT_LINES:])))
    recent_words = {word for name in recent for word in split_identifier(name)}
    rows = []
    for rank, cand in enumerate(ranked):  # (n, F)
        row = cand.row
        words = set(split_identifier(row.name))
        rows.append([
            cand.score,
            math.log1p(max(cand.score, 0.0)),
            math.log1p(rank),
            *(float(row.kind == kind) for kind in _KINDS),
            float("." in row.qualname),
            math.log1p(len(cand.members)),
            float(is_test_code(row.path, row.language)),
            math.log(max(counts.namesakes.get(row.name, 1), 1)),
            len(words & recent_words) / max(len(words), 1),
            float(row.name in recent),
            float(cand.held),
            math.log1p(counts.uses.get(row.name, 0)),
            _folder_share(row.path, path),
            float(cand.named),
        ])
    return np.array(rows, dtype=np.float64).reshape(len(ranked), len(FEATURES))


def _folder_share(path: str, edited: str | None) -> float:
    """The share of the edited file's folders, from the top, that hold ``path`` too."""
    if edited is None:
        return 0.0
    mine = [part for part in posixpath.dirname(edited).split("/") if part]
    theirs = posixpath.dirname(path).split("/")
    if not mine:
        return float(not posixpath.dirname(path))
    same = itertools.takewhile(lambda pair: pair[0] == pair[1], zip(mine, theirs, strict=False))
    return sum(1 for _ in same) / len(mine)


def rerank(ranked: list[Candidate], code: str, counts: Census,
           path: str | None = None) -> list[Candidate]:
    """``ranked`` in the fitted model's order (ties keep the evidence order)."""
    weights = np.array([WEIGHTS[name] for name in FEATURES])
    scores = features(ranked, code, counts, path) @ weights  # (n,)
    return [ranked[i] for i in np.argsort(-scores, kind="stable")]
