"""A function far over the fake encoder's budget, shared by the result-presentation tests."""

from __future__ import annotations

QUERY = "accumulate step 97"


def accumulate_source(*extra_body: str) -> tuple[list[str], int]:
    """(lines of a file holding `accumulate()` then `other()`, lines of `accumulate()`).

    ``extra_body`` lines go right after the signature.
    """
    function = [
        "def accumulate(values):",
        *extra_body,
        "    total = 0",
        *[f"    total += values[{i}] * {i}  # accumulate step {i}" for i in range(120)],
        "    return total",
    ]
    return [*function, "", "", "def other():", "    return 'nothing to see'"], len(function)
