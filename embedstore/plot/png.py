"""The static map: a PNG drawn by matplotlib for READMEs and reports."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

from embedstore.plot.colors import color_groups
from embedstore.plot.points import CollectionMap

PNG_SIZE = (1600, 1000)  # pixels
DPI = 100
QUERY_COLOR = "#111111"

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def write_png(
    found: CollectionMap, out: Path, color_by: str, size: tuple[int, int] = PNG_SIZE
) -> None:
    """Exactly ``size`` pixels: points by group (legend on the right), queries as stars."""
    # No bbox_inches="tight": it would change the size asked for.
    draw(found, color_by, size).savefig(out, dpi=DPI, format="png")


def draw(found: CollectionMap, color_by: str, size: tuple[int, int] = PNG_SIZE) -> Figure:
    """The map as a matplotlib figure of ``size`` pixels at DPI."""
    # The Figure API with an Agg canvas, not pyplot: no global backend switch,
    # no GUI, safe in a server thread.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    width, height = size
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.02, 0.03, 0.74, 0.90))
    labels, colors = color_groups(found.points, color_by)
    # Few points get bigger markers; tens of thousands would merge into blots.
    dot = max(2.0, min(30.0, 30_000 / max(1, len(found.points))))
    groups = []
    for group, color in colors.items():
        members = [p for p, label in zip(found.points, labels, strict=True) if label == group]
        groups.append(ax.scatter([p.x for p in members], [p.y for p in members], s=dot, c=color,
                                 alpha=0.75, linewidths=0))
    # Labels handed to legend() directly: as a scatter's label=, matplotlib would drop
    # every group whose name starts with "_" (its mark for "not in the legend").
    sizes = Counter(labels)
    entries = [f"{group} ({sizes[group]:,})" for group in colors]
    by_id = {p.id: p for p in found.points}
    for marker in found.queries:
        for hit in marker.hits:
            ax.plot([marker.x, by_id[hit].x], [marker.y, by_id[hit].y], color=QUERY_COLOR,
                    linewidth=0.8, alpha=0.6)
        # Rings: a query's hits often sit right beside it, under its star.
        ax.scatter([by_id[h].x for h in marker.hits], [by_id[h].y for h in marker.hits], s=70,
                   facecolors="none", edgecolors=QUERY_COLOR, linewidths=1.2, zorder=3)
        ax.scatter([marker.x], [marker.y], s=220, marker="*", c=QUERY_COLOR, zorder=3)
        ax.annotate(marker.query, (marker.x, marker.y), xytext=(8, 8),
                    textcoords="offset points", fontsize=10, zorder=4,
                    bbox={"boxstyle": "round", "fc": "white", "ec": QUERY_COLOR, "alpha": 0.85})
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(f"{found.collection}: {found.summary}", fontsize=13)
    if colors:
        ax.legend(groups, entries, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9,
                  title=color_by, markerscale=max(1.0, 6 / dot ** 0.5), frameon=False)
    return fig
