"""Section banners after every unit that says something.

The lines outside any definition are units of their own, so that every line of a file
can be found. Some of them are banners: `// Host ------`, or `# ====` / `# Errors` /
`# ====` between two groups of functions. A banner names a section and says nothing of
what is in it, yet a text of one word embeds close to any query that shares that word,
and BM25 favours it for its length: on gorilla/mux, "match a route by its host" ranked
`// Host ---` first and `Route.Host` ninth. A banner stays in the index and in the
results, after every unit that scores above zero.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from embedstore.chunking.layout import MODULE_KIND
from embedstore.languages import is_comment_line
from embedstore.retrieval.tests_last import demote
from embedstore.store.db import UnitRow

# A comment of more words than this says something: a note, a module's doc comment.
MAX_BANNER_WORDS = 4
_WORD = re.compile(r"[^\W\d_]\w*")


def is_banner(row: UnitRow) -> bool:
    """Whether a unit is a module's own lines that are all comment, of a few words at most."""
    if row.kind != MODULE_KIND:
        return False
    lines = [line for line in row.text.split("\n") if line.strip()]
    return all(is_comment_line(line, row.language) for line in lines) and sum(
        len(_WORD.findall(line)) for line in lines) <= MAX_BANNER_WORDS


def demote_banners(
    ranked: Sequence[tuple[int, float]], rows: Mapping[int, UnitRow]
) -> list[tuple[int, float]]:
    """``ranked`` (unit id, score) best first, banners' scores set to 0, re-sorted stably."""
    def banner(unit_id: int) -> bool:
        row = rows.get(unit_id)
        return row is not None and is_banner(row)

    return demote(ranked, banner, 0.0)
