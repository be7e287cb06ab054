"""The interactive map: one self-contained HTML file (plotly, its JavaScript inlined)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from embedstore.plot.colors import color_groups
from embedstore.plot.points import CollectionMap

# Beyond this many markers SVG gets sluggish to pan and hover: draw with WebGL.
WEBGL_FROM = 5000
# The id of the plot's <div>: fixed, so the same map gives the same file.
DIV_ID = "map"
QUERY_COLOR = "#111111"
# Run after the plot is drawn: a click on a unit copies its path:start-end.
# navigator.clipboard needs a secure context, which a file:// page may not be.
CLICK_TO_COPY = """
const plot = document.getElementById("{plot_id}");
const note = document.createElement("div");
note.style.cssText = "position:fixed;bottom:12px;left:12px;padding:6px 10px;" +
  "background:#222;color:#fff;font:13px sans-serif;border-radius:4px;display:none";
document.body.append(note);
function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  const area = document.createElement("textarea");
  area.value = text;
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
  return Promise.resolve();
}
plot.on("plotly_click", (event) => {
  const point = event.points[0];
  if (!point.customdata) return;
  const location = point.customdata[0];
  copyText(location).then(() => {
    note.textContent = "copied " + location;
    note.style.display = "block";
    setTimeout(() => { note.style.display = "none"; }, 1500);
  });
});
"""


def write_html(found: CollectionMap, out: Path, color_by: str) -> None:
    """Points coloured by ``color_by``; hover shows path:start-end and the symbol."""
    import plotly.graph_objects as go

    labels, colors = color_groups(found.points, color_by)
    scatter = go.Scattergl if len(found.points) > WEBGL_FROM else go.Scatter
    fig = go.Figure()
    for group, color in colors.items():
        members = [p for p, label in zip(found.points, labels, strict=True) if label == group]
        fig.add_trace(scatter(
            x=[p.x for p in members], y=[p.y for p in members], mode="markers",
            name=f"{group} ({len(members):,})",
            marker={"color": color, "size": 5, "opacity": 0.8},
            customdata=[[p.location, p.symbol or ""] for p in members],
            hovertemplate="%{customdata[0]}<br>%{customdata[1]}<extra></extra>",
        ))
    by_id = {p.id: p for p in found.points}
    for marker in found.queries:
        hits = [by_id[h] for h in marker.hits]
        fig.add_trace(go.Scatter(
            x=[v for h in hits for v in (marker.x, h.x, None)],
            y=[v for h in hits for v in (marker.y, h.y, None)],
            mode="lines", line={"color": QUERY_COLOR, "width": 1}, opacity=0.5,
            hoverinfo="skip", showlegend=False,
        ))
        # Rings: a query's hits often sit right beside it, under its star.
        fig.add_trace(scatter(
            x=[h.x for h in hits], y=[h.y for h in hits], mode="markers", showlegend=False,
            marker={"symbol": "circle-open", "size": 13, "color": QUERY_COLOR,
                    "line": {"width": 2}},
            customdata=[[h.location, h.symbol or ""] for h in hits],
            hovertemplate=f"hit of {_escape(marker.query)}:<br>%{{customdata[0]}}<br>"
                          "%{customdata[1]}<extra></extra>",
        ))
        ranked = "<br>".join(_escape(f"{rank}. {h.location} {h.symbol or ''}")
                             for rank, h in enumerate(hits, start=1))
        fig.add_trace(go.Scatter(
            x=[marker.x], y=[marker.y], mode="markers", name=f"query: {_escape(marker.query)}",
            marker={"color": QUERY_COLOR, "size": 14, "symbol": "star"},
            hovertemplate=f"<b>{_escape(marker.query)}</b><br>{ranked}<extra></extra>",
        ))
        # A boxed label off to the side, so the query's hits around it stay visible.
        fig.add_annotation(
            x=marker.x, y=marker.y, text=_escape(marker.query), ax=40, ay=-30, arrowwidth=1,
            bgcolor="white", bordercolor=QUERY_COLOR, borderpad=3,
        )
    fig.update_layout(_layout(found, color_by))
    fig.write_html(
        out, include_plotlyjs=True, full_html=True, div_id=DIV_ID, post_script=CLICK_TO_COPY,
        config={"displaylogo": False, "scrollZoom": True},
    )


def _layout(found: CollectionMap, color_by: str) -> dict[str, Any]:
    hidden = {"showticklabels": False, "showgrid": False, "zeroline": False, "title": ""}
    return {
        "title": {"text": f"{found.collection}: {found.summary}"},
        "template": "plotly_white", "hovermode": "closest", "legend": {"title": color_by},
        "xaxis": hidden, "yaxis": {**hidden, "scaleanchor": "x"},
    }


def _escape(text: str) -> str:
    # Plotly reads text as HTML and a hovertemplate's %{...} as a field: a query or a
    # path is neither.
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("%", "&#37;"))
