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

import math
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
)
# Fitted by bench/fit_ranker.py (bench/results/ranker_fit.json); "score" leads.
WEIGHTS = {
    "score": 0.616, "log_score": 0.808, "log_rank": -0.506, "function": 0.608,
    "method": -0.493, "type": -1.459, "constant": 0.462, "variable": 0.139, "member": -0.51,
    "log_members": -0.183, "test": -0.537, "log_namesakes": -0.152, "word_share": 1.051,
    "recent": -1.671, "held": 1.012,
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


def namesakes(conn: sqlite3.Connection, ranked: Sequence[Candidate]) -> dict[str, int]:
    """How many definitions of the collection bear each candidate's name."""
    return symbol_table.name_counts(conn, sorted({cand.row.name for cand in ranked}))


def features(
    ranked: Sequence[Candidate], code: str, namesakes: dict[str, int]
) -> np.ndarray:
    """One row per candidate (in its evidence order), one column per FEATURES name.

    ``namesakes``: what ``namesakes()`` counts for them.
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
            math.log(max(namesakes.get(row.name, 1), 1)),
            len(words & recent_words) / max(len(words), 1),
            float(row.name in recent),
            float(cand.held),
        ])
    return np.array(rows, dtype=np.float64).reshape(len(ranked), len(FEATURES))


def rerank(ranked: list[Candidate], code: str, namesakes: dict[str, int]) -> list[Candidate]:
    """``ranked`` in the fitted model's order (ties keep the evidence order)."""
    weights = np.array([WEIGHTS[name] for name in FEATURES])
    scores = features(ranked, code, namesakes) @ weights  # (n,)
    return [ranked[i] for i in np.argsort(-scores, kind="stable")]
