// The search page: plain JavaScript over the REST API, no build step. The results
// (results.js), facets (facets.js), file view (file.js) and keys (keys.js) are helpers of this.
// A search's query, collection, mode, k and filters live in the URL, so a link
// shares it and Back returns to the one before; so does an open file (`view`, and the
// marked lines in the hash: `#L40-L52`).
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

// The server did not answer at all (stopped, restarted, the network down): worth a retry.
class Unreachable extends Error {}

async function api(path, body) {
  const headers = { "Content-Type": "application/json" };
  if (keyInput.value) headers.Authorization = `Bearer ${keyInput.value}`;
  let response;
  try {
    response = await fetch(path, {
      method: body ? "POST" : "GET",
      headers,
      body: body ? JSON.stringify(body) : undefined,
    });
  } catch {  // fetch fails only when no answer came: its own message says no more than that
    throw new Unreachable(`Cannot reach the embedstore server at ${window.location.host}. ` +
      "Is `embedstore serve` still running?");
  }
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error ? data.error.message : `${response.status} ${response.statusText}`);
  return data;
}

// --- Problems: a message with a Retry when the server is away; a bad filter on its field

let retry = null;  // what Retry runs again

function showProblem(message, again = null) {
  $("problem-text").textContent = message;
  retry = again;
  $("retry").hidden = !again;
  $("problem").hidden = false;
}

function clearProblems() {
  $("problem").hidden = true;
  for (const field of document.querySelectorAll("#filters input")) {
    field.removeAttribute("aria-invalid");
    const error = $(`${field.id}-error`);
    if (error) error.textContent = "";
  }
}

// The server names a bad glob in its message ("invalid glob 'src/[a': ..."): mark the box
// holding it, with that message. False when no box holds it.
function markBadFilter(message, state) {
  const glob = /invalid glob '((?:[^']|'(?!:))*)'/.exec(message);
  const param = glob && ["include", "exclude"].find((name) => state[name].includes(glob[1]));
  if (!param) return false;
  setOptionsOpen(true);
  $(param).setAttribute("aria-invalid", "true");
  $(`${param}-error`).textContent = message;
  $(param).focus();
  return true;
}

$("retry").addEventListener("click", () => {
  const again = retry;
  clearProblems();
  if (again) again();
});

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
    showProblem(err instanceof Unreachable ? err.message : `Could not list the collections: ${err.message}`,
      err instanceof Unreachable ? startPage : null);
    return false;
  }
  loadExamples();
  return true;
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
  // Options the URL sets are shown: a narrowed search says so.
  if (state.mode !== MODES[0] || state.k !== DEFAULT_K || Object.keys(FILTERS).some((p) => state[p].length)) {
    setOptionsOpen(true);
  }
  loadExamples();
}

function setOptionsOpen(open) {
  $("options").hidden = !open;
  $("options-toggle").setAttribute("aria-expanded", String(open));
}

$("options-toggle").addEventListener("click", () => setOptionsOpen($("options").hidden));

// `view=path:10-20` (and `view_collection=name` when the search's collection does
// not say which): the file open over the results, scrolled to that definition; the hash
// `#L12-L14` (or `#L12`) the lines marked in it.
function viewFromParams(params, collection, hash) {
  const found = /^(.+?)(?::(\d+)(?:-(\d+))?)?$/.exec(params.get("view") || "");
  if (!found) return null;
  const start = found[2] ? Number(found[2]) : null;
  const lines = /^#L(\d+)(?:-L(\d+))?$/.exec(hash);
  return {
    collection: params.get("view_collection") || collection,
    path: found[1],
    start,
    end: found[3] ? Number(found[3]) : start,
    marked: lines ? [Number(lines[1]), Number(lines[2] || lines[1])] : null,
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
  state.view = viewFromParams(params, state.collection, window.location.hash);
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
  const [first, last] = (view && view.marked) || [];
  const hash = !first ? "" : first === last ? `#L${first}` : `#L${first}-L${last}`;
  return `?${params}${hash}`;
}

// The search part of a state: two states with the same key show the same results.
const searchKey = (state) => urlOf({ ...state, view: null });

// A new search or file is a new history entry; the same one again is not.
function go(state, entry = null) {
  const url = urlOf(state);
  if (url !== window.location.search + window.location.hash) history.pushState(entry, "", url);
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
  clearProblems();
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
    showResults(data.results, state, queryTerms(state.q));
    const ms = Math.round(performance.now() - started);
    $("status").textContent = `${data.results.length} results in ${ms} ms`;
    if (!data.results.length) suggestOthers(state);
  } catch (err) {
    if (ticket !== latest) return;
    shownKey = null;
    showResults([]);
    $("status").textContent = "";
    if (err instanceof Unreachable) showProblem(err.message, () => runSearch(state));
    else if (!markBadFilter(err.message, state)) showProblem(`The search was refused: ${err.message}`);
  }
}

function showResults(results, state = null, terms = null) {
  const all = Boolean(state) && state.collection === ALL;
  $("results").replaceChildren(...renderResults(results, terms, all));
  if (state) renderFacets(results, state);
  else $("facets").hidden = true;
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

// Bring result `index` (0-based) into view and flash it: the map's way to point at it.
function showResult(index) {
  showPanel("results");
  const shown = document.querySelector(`#results [data-rank="${index}"]`);
  if (!shown) return;
  const article = shown.closest(".hit");
  article.scrollIntoView({ block: "center" });
  article.classList.remove("flash");
  void article.offsetWidth;  // restart the animation when the same result is shown again
  article.classList.add("flash");
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

// The page as its URL says, once the collections are known (a failed listing offers a Retry).
const startPage = () => {
  collectionsListed = loadCollections();
  // A query typed while the listing was on its way stays: only a URL that holds a state
  // (a shared link, Back) replaces what the form shows.
  collectionsListed.then((listed) => {
    if (listed && (window.location.search || !$("query").value.trim())) showURLState();
  });
};
startPage();
