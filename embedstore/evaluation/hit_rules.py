"""When a search result answers a mined query: three rules, tightest first.

- ``tight`` (``eval --strict``, the benchmark's rule): the result is the documented
  definition itself. It holds the definition's `def` line (its name's elsewhere) and
  starts at the definition: at its first decorator or attribute line (at its first
  overload signature or `@overload` stub right above it, which declare the same
  function), or above it by comment and blank lines only (the comments the chunker
  keeps with a definition). An enclosing class outline or module unit holds the `def`
  line too, but a reader asking for the method has to look for it there. A piece of a
  split function that starts at it counts.
- ``contains`` (the strict rule before issue 33): the result's lines hold the `def` line.
- ``overlap`` (``eval`` without ``--strict``): the result's lines overlap the definition's.
"""

from __future__ import annotations

from embedstore.evaluation.dataset import EvalQuery
from embedstore.languages import detect_language, line_comment

TIGHT = "tight"
CONTAINS = "contains"
OVERLAP = "overlap"
HIT_RULES = (TIGHT, CONTAINS, OVERLAP)
# Lines that may stand above a definition's first line in its own unit: block comments
# (`/*`, ` * `), attributes (`#[...]`) and decorators (`@`); a line comment is the language's.
_LEADING = ("/*", "*", "#[", "@")


def is_hit(rule: str, target: EvalQuery, path: str, start_line: int, end_line: int,
           text: str) -> bool:
    """Whether the result at ``path`` lines ``start_line``..``end_line`` (``text``, from its
    first line) answers ``target`` under ``rule``."""
    if rule not in HIT_RULES:
        raise ValueError(f"unknown hit rule {rule!r}; valid rules: {', '.join(HIT_RULES)}")
    if path != target.path:
        return False
    if rule == OVERLAP:
        return start_line <= target.end_line and end_line >= target.start_line
    if not start_line <= target.def_line <= end_line:
        return False
    if rule == CONTAINS or start_line >= target.start_line:
        return True
    above = text.split("\n")[: target.start_line - start_line]
    comment = line_comment(detect_language(target.path))
    return all(not line.strip() or line.lstrip().startswith((comment, *_LEADING))
               for line in above)
