"""Colour groups of a map's points, shared by the HTML and PNG writers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from embedstore.plot.points import MapPoint

COLOR_BY = ("folder", "language", "kind", "file")
# The point attribute each choice groups by.
_FIELD = {"folder": "folder", "language": "language", "kind": "kind", "file": "path"}
# Twenty hues far enough apart to tell apart on white; more groups than that
# cannot be told apart anyway, so the smallest share one grey "other".
PALETTE = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#bcbd22", "#000075", "#800000", "#f032e6", "#008080", "#e6ab02", "#a6cee3", "#fb9a99",
    "#6a3d9a", "#b2df8a", "#fdbf6f", "#525252",
)
OTHER = "(other)"  # parenthesised: no folder, language or kind is named so, hardly a file
OTHER_COLOR = "#c7c7c7"


def check_color_by(color_by: str) -> None:
    if color_by not in COLOR_BY:
        raise ValueError(f"cannot colour by {color_by!r}; valid choices: {', '.join(COLOR_BY)}")


def resolve_color_by(points: Sequence[MapPoint], color_by: str) -> str:
    """``file`` instead of ``folder`` when every point is in one folder (a flat repository):
    one colour for all would tell nothing."""
    if color_by == "folder" and len({p.folder for p in points}) == 1:
        return "file"
    return color_by


def color_groups(points: Sequence[MapPoint], color_by: str) -> tuple[list[str], dict[str, str]]:
    """(each point's group, colour by group in legend order: largest first, "other" last)."""
    check_color_by(color_by)
    values = [str(getattr(p, _FIELD[color_by])) for p in points]
    counts = Counter(values)
    ranked = sorted(counts, key=lambda v: (-counts[v], v))  # ties by name: deterministic
    named = ranked if len(ranked) <= len(PALETTE) else ranked[: len(PALETTE) - 1]
    colors = dict(zip(named, PALETTE, strict=False))
    labels = [v if v in colors else OTHER for v in values]
    if len(named) < len(ranked):
        colors[OTHER] = OTHER_COLOR
    return labels, colors
