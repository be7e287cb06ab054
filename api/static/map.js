// The Map view: GET /v1/collections/{name}/map drawn on a <canvas> (no plotting
// library to ship), coloured by folder, language or kind, with the current
// search results ringed and numbered. Uses `$` and `api` from app.js.
"use strict";

// The palette and the "(other)" rule of embedstore/plot/colors.py, so the page
// and `embedstore plot` colour a collection alike.
const PALETTE = [
  "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
  "#bcbd22", "#000075", "#800000", "#f032e6", "#008080", "#e6ab02", "#a6cee3", "#fb9a99",
  "#6a3d9a", "#b2df8a", "#fdbf6f", "#525252",
];
const OTHER = "(other)";
const OTHER_COLOR = "#c7c7c7";
const MAP_LIMIT = 5000;
const HOVER_PX = 8;

const mapState = { data: null, results: [], screen: [] };
const maps = new Map();  // "collection|method" -> the map JSON, fetched once per page load

function colorGroups(points, field) {
  const counts = new Map();
  for (const p of points) counts.set(p[field], (counts.get(p[field]) || 0) + 1);
  const ranked = [...counts.keys()].sort((a, b) => counts.get(b) - counts.get(a) || (a < b ? -1 : 1));
  const named = ranked.length <= PALETTE.length ? ranked : ranked.slice(0, PALETTE.length - 1);
  const colors = new Map(named.map((value, i) => [value, PALETTE[i]]));
  if (named.length < ranked.length) colors.set(OTHER, OTHER_COLOR);
  const groupOf = (p) => (colors.has(p[field]) ? p[field] : OTHER);
  const sizes = new Map();
  for (const p of points) sizes.set(groupOf(p), (sizes.get(groupOf(p)) || 0) + 1);
  return { colors, groupOf, sizes };
}

async function loadMap() {
  const name = $("collection").value;
  const method = $("map-method").value;
  if (!name) return;
  const key = `${name}|${method}`;
  if (!maps.has(key)) {
    $("map-info").textContent = "Projecting…";
    try {
      const query = `method=${method}&limit=${MAP_LIMIT}`;
      maps.set(key, await api(`/v1/collections/${encodeURIComponent(name)}/map?${query}`));
    } catch (err) {
      $("map-info").textContent = `Error: ${err.message}`;
      return;
    }
  }
  // Another choice made while this one was fetched wins.
  if (`${$("collection").value}|${$("map-method").value}` !== key) return;
  mapState.data = maps.get(key);
  drawMap();
}

function drawMap() {
  const data = mapState.data;
  const canvas = $("map-canvas");
  if (!data || canvas.offsetParent === null) return;
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const ctx = canvas.getContext("2d");
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  ctx.clearRect(0, 0, width, height);

  // One scale for both axes: distances on the map mean the same in every direction.
  const xs = data.points.map((p) => p.x);
  const ys = data.points.map((p) => p.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const margin = 24;
  const scale = Math.min((width - 2 * margin) / (maxX - minX || 1), (height - 2 * margin) / (maxY - minY || 1));
  const offsetX = (width - scale * (maxX - minX)) / 2;
  const offsetY = (height - scale * (maxY - minY)) / 2;
  mapState.screen = data.points.map((p) => [offsetX + scale * (p.x - minX), height - offsetY - scale * (p.y - minY)]);

  const { colors, groupOf, sizes } = colorGroups(data.points, $("map-color").value);
  ctx.globalAlpha = 0.75;
  data.points.forEach((p, i) => {
    ctx.fillStyle = colors.get(groupOf(p));
    ctx.beginPath();
    ctx.arc(mapState.screen[i][0], mapState.screen[i][1], 2.5, 0, 2 * Math.PI);
    ctx.fill();
  });
  ctx.globalAlpha = 1;

  const index = new Map(data.points.map((p, i) => [p.id, i]));
  const shown = mapState.results.map((hit, rank) => [rank + 1, index.get(hit.id)]).filter(([, i]) => i !== undefined);
  ctx.font = "bold 12px system-ui, sans-serif";
  for (const [rank, i] of shown.reverse()) {  // the best result drawn last, on top
    const [x, y] = mapState.screen[i];
    ctx.fillStyle = colors.get(groupOf(data.points[i]));
    ctx.strokeStyle = "#111";
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.arc(x, y, 7, 0, 2 * Math.PI);
    ctx.fill();
    ctx.stroke();
    ctx.lineWidth = 3;
    ctx.strokeStyle = "#fff";
    ctx.strokeText(String(rank), x + 9, y - 7);
    ctx.fillStyle = "#111";
    ctx.fillText(String(rank), x + 9, y - 7);
  }
  canvas.dataset.points = String(data.points.length);
  canvas.dataset.highlighted = String(shown.length);

  const results = mapState.results.length ? ` · ${shown.length} of ${mapState.results.length} results on the map` : "";
  const methods = { pca: "PCA", tsne: "t-SNE", umap: "UMAP" };
  $("map-info").textContent = `${data.sampled.toLocaleString()} of ${data.total_units.toLocaleString()} units · ${methods[data.method]}${results}`;
  $("map-legend").replaceChildren(...[...colors].map(([group, color]) => {
    const item = document.createElement("li");
    const dot = document.createElement("i");
    dot.style.background = color;
    item.append(dot, `${group} (${sizes.get(group) || 0})`);
    return item;
  }));
}

function nearestPoint(event) {
  const box = $("map-canvas").getBoundingClientRect();
  const mx = event.clientX - box.left;
  const my = event.clientY - box.top;
  let best = -1;
  let bestDistance = HOVER_PX * HOVER_PX;
  mapState.screen.forEach(([x, y], i) => {
    const d = (x - mx) ** 2 + (y - my) ** 2;
    if (d <= bestDistance) [best, bestDistance] = [i, d];
  });
  return best < 0 ? null : { point: mapState.data.points[best], mx, my };
}

const locationOf = (p) => `${p.path}:${p.start_line}-${p.end_line}`;

$("map-canvas").addEventListener("mousemove", (event) => {
  const tip = $("map-tip");
  const found = mapState.data && nearestPoint(event);
  tip.hidden = !found;
  if (!found) return;
  tip.textContent = `${locationOf(found.point)}${found.point.symbol ? "  " + found.point.symbol : ""}`;
  tip.style.left = `${found.mx + 12}px`;
  tip.style.top = `${found.my + 12}px`;
});
$("map-canvas").addEventListener("mouseleave", () => { $("map-tip").hidden = true; });
// A click copies the location, as in `embedstore plot`'s HTML.
$("map-canvas").addEventListener("click", async (event) => {
  const found = mapState.data && nearestPoint(event);
  if (!found || !navigator.clipboard) return;
  await navigator.clipboard.writeText(locationOf(found.point));
  $("map-tip").textContent = `copied ${locationOf(found.point)}`;
});

function showView(view) {
  for (const button of document.querySelectorAll("#views button")) {
    button.classList.toggle("active", button.dataset.view === view);
  }
  $("results").hidden = view !== "results";
  $("map-view").hidden = view !== "map";
  if (view === "map") loadMap();
}

for (const button of document.querySelectorAll("#views button")) {
  button.addEventListener("click", () => showView(button.dataset.view));
}
$("map-method").addEventListener("change", loadMap);
$("map-color").addEventListener("change", drawMap);
$("collection").addEventListener("change", () => {
  mapState.results = [];
  if (!$("map-view").hidden) loadMap();
});
document.addEventListener("search-results", (event) => {
  mapState.results = event.detail;
  drawMap();
});
window.addEventListener("resize", drawMap);
