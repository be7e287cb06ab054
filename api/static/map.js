// The Map view: GET /v1/collections/{name}/map drawn on a <canvas> (no plotting
// library to ship), coloured by folder, language, kind or file, with the current
// search results ringed and numbered; a click on a point shows its result, or its
// file. Uses `$`, `api`, `ALL`, `collectionNames`, `collectionsListed` and `showResult` from app.js,
// `openFile` from file.js.
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
// The point field each colour choice groups by.
const COLOR_FIELDS = { folder: "folder", language: "language", kind: "kind", file: "path" };
let colorChosen = false;  // the person picked a colouring: keep it from map to map

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

// The map of the collection searched; for all collections, of the best result's.
function mapCollection() {
  const chosen = $("collection").value;
  if (chosen !== ALL) return chosen;
  return mapState.results.length ? mapState.results[0].collection : collectionNames[0];
}

async function loadMap() {
  // The Map opened before the collections are listed (a click right after the page loads)
  // has none to draw yet: it waits for the listing, as a search does.
  await collectionsListed;
  const name = mapCollection();
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
  if (`${mapCollection()}|${$("map-method").value}` !== key) return;
  mapState.data = maps.get(key);
  // A flat repository (or one folder below the shared ones) is one colour by folder:
  // by file then, as `embedstore plot` does, unless the person chose.
  if (!colorChosen) {
    const oneFolder = new Set(mapState.data.points.map((p) => p.folder)).size === 1;
    $("map-color").value = oneFolder ? "file" : "folder";
  }
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

  const { colors, groupOf, sizes } = colorGroups(data.points, COLOR_FIELDS[$("map-color").value]);
  // The legend first: on a wide screen it sits over the canvas's right side, kept clear of points.
  const legend = $("map-legend");
  legend.replaceChildren(...[...colors].map(([group, color]) => {
    const item = document.createElement("li");
    const dot = document.createElement("i");
    dot.style.background = color;
    item.append(dot, `${group} (${sizes.get(group) || 0})`);
    return item;
  }));
  const legendWidth = getComputedStyle(legend).position === "absolute" ? legend.offsetWidth + 12 : 0;

  // One scale for both axes: distances on the map mean the same in every direction.
  const xs = data.points.map((p) => p.x);
  const ys = data.points.map((p) => p.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const margin = 24;
  const room = width - legendWidth;
  const scale = Math.min((room - 2 * margin) / (maxX - minX || 1), (height - 2 * margin) / (maxY - minY || 1));
  const offsetX = (room - scale * (maxX - minX)) / 2;
  const offsetY = (height - scale * (maxY - minY)) / 2;
  mapState.screen = data.points.map((p) => [offsetX + scale * (p.x - minX), height - offsetY - scale * (p.y - minY)]);

  ctx.globalAlpha = 0.75;
  data.points.forEach((p, i) => {
    ctx.fillStyle = colors.get(groupOf(p));
    ctx.beginPath();
    ctx.arc(mapState.screen[i][0], mapState.screen[i][1], 2.5, 0, 2 * Math.PI);
    ctx.fill();
  });
  ctx.globalAlpha = 1;

  // Unit ids are per collection: only this collection's results are on its map.
  const index = new Map(data.points.map((p, i) => [p.id, i]));
  const shown = mapState.results
    .map((hit, rank) => [rank + 1, hit.collection === data.collection ? index.get(hit.id) : undefined])
    .filter(([, i]) => i !== undefined);
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
  $("map-info").textContent = `${data.collection} · ${data.sampled.toLocaleString()} of ${data.total_units.toLocaleString()} units · ${methods[data.method]}${results}`;
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
// A click on a result's point shows that result in the list; on any other point, its file.
$("map-canvas").addEventListener("click", (event) => {
  const found = mapState.data && nearestPoint(event);
  if (!found) return;
  const p = found.point;
  const collection = mapState.data.collection;
  const rank = mapState.results.findIndex((hit) => hit.id === p.id && hit.collection === collection);
  if (rank >= 0) showResult(rank);
  // A unit no search matched: the whole of it is what the point stands for.
  else openFile({ collection, path: p.path, start: p.start_line, end: p.end_line, marked: [p.start_line, p.end_line] });
});

document.addEventListener("panel-shown", (event) => {
  if (event.detail === "map") loadMap();
});
$("map-method").addEventListener("change", loadMap);
$("map-color").addEventListener("change", () => {
  colorChosen = true;
  drawMap();
});
$("collection").addEventListener("change", () => {
  mapState.results = [];
  if (!$("map-view").hidden) loadMap();
});
document.addEventListener("search-results", (event) => {
  mapState.results = event.detail;
  // Over all collections the map follows the best result's collection.
  if (!$("map-view").hidden && mapState.data && mapState.data.collection !== mapCollection()) loadMap();
  else drawMap();
});
window.addEventListener("resize", drawMap);
