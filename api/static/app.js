// The search page: plain JavaScript over the REST API, no build step.
// A search's query, collection, mode, k and filters live in the URL, so a link
// shares it and Back returns to the one before; so does an open file (`view`).
"use strict";

const $ = (id) => document.getElementById(id);
const keyInput = $("api-key");
keyInput.value = localStorage.getItem("embedstore-key") || "";
keyInput.addEventListener("change", () => {
  localStorage.setItem("embedstore-key", keyInput.value);
  collectionsListed = loadCollections();
});

const MODES = ["hybrid", "dense", "lexical"];
const DEFAULT_K = 10;
// URL parameter -> the filter box it fills (and the request's filters field).
const FILTERS = { include: "include", exclude: "exclude", language: "languages" };
const COLLECTION_KEY = "embedstore-collection";
// The picker's value (and the URL's `collection=*`) for one search over every
// collection; no collection name holds a "*".
const ALL = "*";
const MAX_EXAMPLES = 6;

let collectionNames = [];
// The latest listing of the collections: a search submitted before it arrives waits for it.
let collectionsListed = Promise.resolve();

async function api(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (keyInput.value) headers.Authorization = `Bearer ${keyInput.value}`;
  const response = await fetch(path, {
    method: body ? "POST" : "GET",
    headers,
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error ? data.error.message : response.statusText);
  return data;
}

const collectionURL = (name) => `/v1/collections/${encodeURIComponent(name)}`;

async function loadCollections() {
  const select = $("collection");
  try {
    const collections = await api("/v1/collections");
    collectionNames = collections.map((c) => c.name);
    const options = collections.map((c) => new Option(
      `${c.name} (${c.unreadable ? "unreadable" : `${c.units} definitions`})`, c.name));
    // Several collections: one search over them all is offered first, so it is the default.
    if (collections.length > 1) options.unshift(new Option(`All collections (${collections.length})`, ALL));
    select.replaceChildren(...options);
    // The last collection searched, if it still exists.
    const remembered = localStorage.getItem(COLLECTION_KEY);
    if (options.some((o) => o.value === remembered)) select.value = remembered;
    $("status").textContent = collections.length ? "" : "No collection yet: run `embedstore index PATH`.";
  } catch (err) {
    $("status").textContent = `Could not list collections: ${err.message}`;
  }
  loadExamples();
}

// --- Example queries: the collection's own (GET /v1/collections/{name}/examples)

const examplesOf = new Map();  // collection -> the promise of its examples, one fetch per page load

function examples(name) {
  if (!examplesOf.has(name)) {
    // No examples is no reason to fail the page.
    examplesOf.set(name, api(`${collectionURL(name)}/examples`).then((data) => data.examples, () => []));
  }
  return examplesOf.get(name);
}

async function loadExamples() {
  const chosen = $("collection").value;
  const names = chosen === ALL ? collectionNames : collectionNames.filter((name) => name === chosen);
  const lists = await Promise.all(names.map(examples));
  if ($("collection").value !== chosen) return;  // another choice made meanwhile wins
  // In turn from each collection, so "all" shows a bit of every one.
  const queries = [];
  for (let i = 0; lists.some((list) => i < list.length); i++) {
    for (const list of lists) if (i < list.length && !queries.includes(list[i].query)) queries.push(list[i].query);
  }
  $("examples").replaceChildren(...queries.slice(0, MAX_EXAMPLES).map((query) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = query;
    button.addEventListener("click", () => {
      $("query").value = query;
      $("search-form").requestSubmit();
    });
    item.append(button);
    return item;
  }));
  $("examples-intro").textContent = `From ${chosen === ALL ? "these collections" : "this collection"}, try:`;
  $("examples-intro").hidden = !queries.length;
}

// --- The search as a state: form <-> state <-> URL

const splitList = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);

function formState() {
  const state = {
    q: $("query").value.trim(),
    collection: $("collection").value,
    mode: document.querySelector("input[name=mode]:checked").value,
    k: Number($("k").value),
    view: null,
  };
  for (const param of Object.keys(FILTERS)) state[param] = splitList($(param).value);
  return state;
}

function showState(state) {
  $("query").value = state.q;
  if (state.collection) $("collection").value = state.collection;
  document.querySelector(`input[name=mode][value=${state.mode}]`).checked = true;
  const kSelect = $("k");
  if (![...kSelect.options].some((o) => Number(o.value) === state.k)) kSelect.add(new Option(String(state.k)));
  kSelect.value = String(state.k);
  for (const param of Object.keys(FILTERS)) $(param).value = state[param].join(", ");
  loadExamples();
}

// `view=path:10-20` (and `view_collection=name` when the search's collection does
// not say which): the file open over the results, that range highlighted.
function viewFromParams(params, collection) {
  const found = /^(.+?)(?::(\d+)(?:-(\d+))?)?$/.exec(params.get("view") || "");
  if (!found) return null;
  const start = found[2] ? Number(found[2]) : null;
  return {
    collection: params.get("view_collection") || collection,
    path: found[1],
    start,
    end: found[3] ? Number(found[3]) : start,
  };
}

function stateFromURL() {
  const params = new URLSearchParams(window.location.search);
  const k = Number.parseInt(params.get("k"), 10);
  const state = {
    q: (params.get("q") || "").trim(),
    collection: params.get("collection") || $("collection").value,
    mode: MODES.includes(params.get("mode")) ? params.get("mode") : MODES[0],
    k: k >= 1 ? k : DEFAULT_K,
  };
  // A link for "all" opened on a store of one collection: that one is all.
  if (state.collection === ALL && collectionNames.length === 1) state.collection = collectionNames[0];
  for (const param of Object.keys(FILTERS)) state[param] = params.getAll(param).flatMap(splitList);
  state.view = viewFromParams(params, state.collection);
  return state;
}

// Defaults are left out, so a plain search has a short link.
function urlOf(state) {
  const params = new URLSearchParams();
  if (state.q) params.set("q", state.q);
  params.set("collection", state.collection);
  if (state.mode !== MODES[0]) params.set("mode", state.mode);
  if (state.k !== DEFAULT_K) params.set("k", String(state.k));
  for (const param of Object.keys(FILTERS)) for (const value of state[param]) params.append(param, value);
  const view = state.view;
  if (view) {
    params.set("view", view.start ? `${view.path}:${view.start}-${view.end}` : view.path);
    if (view.collection !== state.collection) params.set("view_collection", view.collection);
  }
  return `?${params}`;
}

// The search part of a state: two states with the same key show the same results.
const searchKey = (state) => urlOf({ ...state, view: null });

// A new search or file is a new history entry; the same one again is not.
function go(state, entry = null) {
  const url = urlOf(state);
  if (url !== window.location.search) history.pushState(entry, "", url);
  showURLState();
}

// --- Panels: results (or the empty page), the map, an open file

let panel = "results";
let panelBeforeFile = "results";

function showPanel(name) {
  if (name === "file" && panel !== "file") panelBeforeFile = panel;
  panel = name;
  for (const button of document.querySelectorAll("#views button")) {
    button.classList.toggle("active", button.dataset.view === name);
  }
  $("results-panel").hidden = name !== "results";
  $("map-view").hidden = name !== "map";
  $("file-view").hidden = name !== "file";
  // The map (map.js) draws only while it is shown.
  document.dispatchEvent(new CustomEvent("panel-shown", { detail: name }));
}

for (const button of document.querySelectorAll("#views button")) {
  button.addEventListener("click", () => {
    const state = stateFromURL();
    if (state.view) {  // a tab closes the open file
      panelBeforeFile = button.dataset.view;
      go({ ...state, view: null });
    } else {
      showPanel(button.dataset.view);
    }
  });
}

// --- Showing results

let latest = 0;  // the newest search: an older one answering late is dropped
let shownKey = null;  // the search whose results are on the page

async function runSearch(state) {
  const all = state.collection === ALL;
  if (!all && !collectionNames.includes(state.collection)) {
    $("status").textContent = `No collection named "${state.collection}" here.`;
    showResults([]);
    return;
  }
  $("empty").hidden = true;
  $("no-results").hidden = true;
  $("status").textContent = "Searching…";
  const ticket = ++latest;
  shownKey = searchKey(state);
  const started = performance.now();
  const filters = {};
  for (const [param, field] of Object.entries(FILTERS)) filters[field] = state[param];
  const body = { query: state.q, k: state.k, mode: state.mode, filters, highlight: true };
  try {
    // All collections: one ranking over them (POST /v1/search); every hit names its collection.
    const data = await api(all ? "/v1/search" : `${collectionURL(state.collection)}/search`, body);
    if (ticket !== latest) return;
    showResults(data.results, queryTerms(state.q), all);
    const ms = Math.round(performance.now() - started);
    $("status").textContent = `${data.results.length} results in ${ms} ms`;
    if (!data.results.length) suggestOthers(state);
  } catch (err) {
    if (ticket !== latest) return;
    shownKey = null;
    showResults([]);
    $("status").textContent = `Error: ${err.message}`;
  }
}

function showResults(results, terms = null, withCollection = false) {
  $("results").replaceChildren(...results.map((hit, i) => renderHit(hit, i + 1, terms, withCollection)));
  // The Map view (map.js) rings these results' points.
  document.dispatchEvent(new CustomEvent("search-results", { detail: results }));
}

function showEmpty() {
  latest++;
  shownKey = null;
  showResults([]);
  $("no-results").hidden = true;
  $("empty").hidden = false;
}

// No results: the searches likelier to find something, one click away.
function suggestOthers(state) {
  const tries = [];
  if (state.mode !== "hybrid") tries.push(["in hybrid mode", { ...state, mode: "hybrid" }]);
  if (Object.keys(FILTERS).some((param) => state[param].length)) {
    tries.push(["without filters", { ...state, include: [], exclude: [], language: [] }]);
  }
  if (state.collection !== ALL && collectionNames.length > 1) {
    tries.push(["in all collections", { ...state, collection: ALL }]);
  }
  const box = $("no-results");
  box.replaceChildren("Nothing matched.");
  if (!tries.length) box.append(" The collection may hold nothing like it: try other words.");
  else box.append(" Search again ");
  tries.forEach(([label, other], i) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = label;
    button.addEventListener("click", () => go(other));
    box.append(...(i ? [i === tries.length - 1 ? " or " : ", "] : []), button);
  });
  if (tries.length) box.append(".");
  box.hidden = false;
}

function renderHit(hit, rank, terms, withCollection) {
  const article = document.createElement("article");
  article.className = "hit";
  const head = document.createElement("h2");
  // The path opens the file with this range highlighted; a real link, so it opens in a tab too.
  const view = { collection: hit.collection, path: hit.path, start: hit.start_line, end: hit.end_line };
  const where = document.createElement("span");
  where.className = "location";
  const link = document.createElement("a");
  link.href = urlOf({ ...stateFromURL(), view });
  link.textContent = `${hit.path}:${hit.start_line}-${hit.end_line}`;
  link.addEventListener("click", (event) => {
    if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    openFile(view);
  });
  const text = document.createElement("span");
  text.append(`${rank}. `, link);
  where.append(text);
  head.append(where);
  if (withCollection) {
    const collection = document.createElement("span");
    collection.className = "collection";
    collection.textContent = hit.collection;
    head.append(collection);
  }
  const meta = document.createElement("span");
  meta.className = "meta";
  meta.textContent = `${hit.symbol ? hit.symbol + " · " : ""}${hit.kind} · score ${hit.score.toFixed(3)} · ${hit.found_by}`;
  // An editor opens `abs_path:line` where the file is on disk; else the indexed range.
  const copied = hit.abs_path ? `${hit.abs_path}:${hit.start_line}` : `${hit.path}:${hit.start_line}-${hit.end_line}`;
  head.append(meta, copyButton(copied));
  const code = document.createElement("div");
  code.className = "code";
  // The server's highlighter escapes the code and classes each line: lines of
  // the matched piece are "match", lines past the preview are "folded".
  code.innerHTML = hit.html;
  if (terms) markTerms(code, terms);
  article.append(head, code);
  const folded = code.querySelectorAll(".line.folded").length;
  if (folded) article.append(moreButton(article, folded));
  return article;
}

// "… N more lines" under a folded definition; a click unfolds it (and folds it back).
function moreButton(article, folded) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "more";
  const label = () => (article.classList.contains("open") ? "show less" : `… ${folded} more lines`);
  button.textContent = label();
  button.addEventListener("click", () => {
    article.classList.toggle("open");
    button.textContent = label();
  });
  return button;
}

// Bring result `index` (0-based) into view and flash it: the map's way to point at it.
function showResult(index) {
  showPanel("results");
  const article = $("results").children[index];
  if (!article) return;
  article.scrollIntoView({ block: "center" });
  article.classList.remove("flash");
  void article.offsetWidth;  // restart the animation when the same result is shown again
  article.classList.add("flash");
}

// --- Copying a location

// navigator.clipboard needs a secure context (https or loopback); elsewhere the old way.
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}

function copyButton(text) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "copy";
  button.title = `Copy ${text}`;
  button.textContent = "copy";
  button.addEventListener("click", async () => {
    try {
      await copyText(text);
      button.textContent = "copied";
    } catch {
      button.textContent = "copy failed";
    }
    setTimeout(() => { button.textContent = "copy"; }, 1500);
  });
  return button;
}

// --- A whole file, the hit's range highlighted (GET /v1/collections/{name}/files/{path})

let fileTicket = 0;

function openFile(view) {
  go({ ...stateFromURL(), view }, { file: true });
}

async function showFile(view) {
  showPanel("file");
  const range = view.start ? `:${view.start}-${view.end}` : "";
  $("file-title").textContent = `${view.collection} · ${view.path}${range}`;
  const code = $("file-code");
  code.replaceChildren();
  const ticket = ++fileTicket;
  let file;
  try {
    const path = view.path.split("/").map(encodeURIComponent).join("/");
    file = await api(`${collectionURL(view.collection)}/files/${path}`);
  } catch (err) {
    if (ticket === fileTicket) code.textContent = `Cannot show ${view.path}: ${err.message}`;
    return;
  }
  if (ticket !== fileTicket) return;
  const lines = file.text.split("\n");
  if (file.text.endsWith("\n")) lines.pop();
  const fragment = document.createDocumentFragment();
  lines.forEach((text, i) => {
    const number = i + 1;
    const line = document.createElement("span");
    line.className = view.start && number >= view.start && number <= view.end ? "line selected" : "line";
    const label = document.createElement("span");
    label.className = "linenos";
    label.textContent = String(number).padStart(String(lines.length).length);
    line.append(label, text);
    fragment.append(line);
  });
  code.append(fragment);
  const first = code.querySelector(".line.selected");
  if (first) first.scrollIntoView({ block: "center" });
}

$("file-close").addEventListener("click", () => {
  // Opened from this page: Back returns to where it was, scroll included.
  if (history.state && history.state.file) history.back();
  else go({ ...stateFromURL(), view: null });
});

// --- Query terms marked in the code

// Words too common to be worth marking.
const STOP_WORDS = new Set(("a an and are as at be by do does for from how in into is it of on or " +
  "that the this to what when where which with").split(" "));

// The query's words, and the parts of a snake_case or camelCase name, as one
// case-insensitive pattern (longest first, so "token" wins over "to"); null when none.
function queryTerms(query) {
  const words = query.match(/[A-Za-z0-9_]+/g) || [];
  const parts = words.flatMap((w) => [w, ...w.split("_"), ...w.split(/(?<=[a-z0-9])(?=[A-Z])/)]);
  const terms = [...new Set(parts.map((p) => p.toLowerCase()))]
    .filter((t) => t.length >= 2 && !STOP_WORDS.has(t))
    .sort((a, b) => b.length - a.length);
  if (!terms.length) return null;
  return new RegExp(terms.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"), "gi");
}

// Wrap each match in the code's text (not in line numbers) in <mark class="term">.
function markTerms(code, pattern) {
  const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.parentElement.closest(".linenos") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  for (const node of nodes) {
    const text = node.nodeValue;
    const pieces = [];
    let last = 0;
    for (const found of text.matchAll(pattern)) {
      pieces.push(text.slice(last, found.index));
      const mark = document.createElement("mark");
      mark.className = "term";
      mark.textContent = found[0];
      pieces.push(mark);
      last = found.index + found[0].length;
    }
    if (last === 0) continue;
    pieces.push(text.slice(last));
    node.replaceWith(...pieces);
  }
}

// --- Wiring

$("search-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  // What was typed, read before the wait: the list's arrival shows the URL's state.
  const typed = formState();
  await collectionsListed;
  const state = { ...typed, collection: typed.collection || $("collection").value };
  if (!state.collection || !state.q) return;
  localStorage.setItem(COLLECTION_KEY, state.collection);
  shownKey = null;  // Search pressed again runs the search again (the index may have changed)
  go(state);
});

$("collection").addEventListener("change", () => {
  localStorage.setItem(COLLECTION_KEY, $("collection").value);
  loadExamples();
});

// "/" jumps to the query box, as on most code search sites, unless one is typing.
document.addEventListener("keydown", (event) => {
  if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target instanceof Element && event.target.closest("input, textarea, select, [contenteditable]")) return;
  event.preventDefault();
  $("query").focus();
  $("query").select();
});

// Back and Forward: show what the URL holds: a search, the empty page, an open file.
window.addEventListener("popstate", () => showURLState());

function showURLState() {
  const state = stateFromURL();
  showState(state);
  // Closing a file, or opening one, leaves the search shown as it was.
  if (!state.q) showEmpty();
  else if (searchKey(state) !== shownKey) runSearch(state);
  if (state.view) showFile(state.view);
  else if (panel === "file") showPanel(panelBeforeFile);
}

collectionsListed = loadCollections();
collectionsListed.then(showURLState);
