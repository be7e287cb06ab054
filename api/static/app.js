// The search page: plain JavaScript over the REST API, no build step.
// A search's query, collection, mode, k and filters live in the URL, so a link
// shares it and Back returns to the one before.
"use strict";

const $ = (id) => document.getElementById(id);
const keyInput = $("api-key");
keyInput.value = localStorage.getItem("embedstore-key") || "";
keyInput.addEventListener("change", () => {
  localStorage.setItem("embedstore-key", keyInput.value);
  loadCollections();
});

const MODES = ["hybrid", "dense", "lexical"];
const DEFAULT_K = 10;
// URL parameter -> the filter box it fills (and the request's filters field).
const FILTERS = { include: "include", exclude: "exclude", language: "languages" };
const COLLECTION_KEY = "embedstore-collection";

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

async function loadCollections() {
  const select = $("collection");
  try {
    const collections = await api("/v1/collections");
    select.replaceChildren(...collections.map((c) => new Option(`${c.name} (${c.units} definitions)`, c.name)));
    // The last collection searched, if it still exists.
    const remembered = localStorage.getItem(COLLECTION_KEY);
    if (collections.some((c) => c.name === remembered)) select.value = remembered;
    $("status").textContent = collections.length ? "" : "No collection yet: run `embedstore index PATH`.";
  } catch (err) {
    $("status").textContent = `Could not list collections: ${err.message}`;
  }
}

// --- The search as a state: form <-> state <-> URL

const splitList = (text) => text.split(",").map((s) => s.trim()).filter(Boolean);

function formState() {
  const state = {
    q: $("query").value.trim(),
    collection: $("collection").value,
    mode: document.querySelector("input[name=mode]:checked").value,
    k: Number($("k").value),
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
}

function stateFromURL() {
  const params = new URLSearchParams(window.location.search);
  const k = Number.parseInt(params.get("k"), 10);
  const state = {
    q: (params.get("q") || "").trim(),
    collection: params.get("collection") || "",
    mode: MODES.includes(params.get("mode")) ? params.get("mode") : MODES[0],
    k: k >= 1 ? k : DEFAULT_K,
  };
  for (const param of Object.keys(FILTERS)) state[param] = params.getAll(param).flatMap(splitList);
  return state;
}

// Defaults are left out, so a plain search has a short link.
function urlOf(state) {
  const params = new URLSearchParams({ q: state.q, collection: state.collection });
  if (state.mode !== MODES[0]) params.set("mode", state.mode);
  if (state.k !== DEFAULT_K) params.set("k", String(state.k));
  for (const param of Object.keys(FILTERS)) for (const value of state[param]) params.append(param, value);
  return `?${params}`;
}

// --- Showing results

let latest = 0;  // the newest search: an older one answering late is dropped

async function runSearch(state) {
  const options = [...$("collection").options].map((o) => o.value);
  if (!options.includes(state.collection)) {
    $("status").textContent = `No collection named "${state.collection}" here.`;
    showResults([]);
    return;
  }
  $("empty").hidden = true;
  $("status").textContent = "Searching…";
  const ticket = ++latest;
  const started = performance.now();
  const filters = {};
  for (const [param, field] of Object.entries(FILTERS)) filters[field] = state[param];
  try {
    const data = await api(`/v1/collections/${encodeURIComponent(state.collection)}/search`, {
      query: state.q, k: state.k, mode: state.mode, filters, highlight: true,
    });
    if (ticket !== latest) return;
    showResults(data.results, queryTerms(state.q));
    const ms = Math.round(performance.now() - started);
    $("status").textContent = `${data.results.length} results in ${ms} ms`;
  } catch (err) {
    if (ticket !== latest) return;
    showResults([]);
    $("status").textContent = `Error: ${err.message}`;
  }
}

function showResults(results, terms = null) {
  $("results").replaceChildren(...results.map((hit, i) => renderHit(hit, i + 1, terms)));
  // The Map view (map.js) rings these results' points.
  document.dispatchEvent(new CustomEvent("search-results", { detail: results }));
}

function showEmpty() {
  latest++;
  showResults([]);
  $("empty").hidden = false;
}

function renderHit(hit, rank, terms) {
  const article = document.createElement("article");
  article.className = "hit";
  const head = document.createElement("h2");
  const where = document.createElement("span");
  where.className = "location";
  where.textContent = `${rank}. ${hit.path}:${hit.start_line}-${hit.end_line}`;
  const meta = document.createElement("span");
  meta.className = "meta";
  meta.textContent = `${hit.symbol ? hit.symbol + " · " : ""}${hit.kind} · score ${hit.score.toFixed(3)} · ${hit.found_by}`;
  head.append(where, meta);
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

$("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const state = formState();
  if (!state.collection || !state.q) return;
  localStorage.setItem(COLLECTION_KEY, state.collection);
  const url = urlOf(state);
  // A new search is a new history entry; the same one again is not.
  if (url !== window.location.search) history.pushState(null, "", url);
  runSearch(state);
});

$("collection").addEventListener("change", () => localStorage.setItem(COLLECTION_KEY, $("collection").value));

for (const example of document.querySelectorAll("#examples button")) {
  example.addEventListener("click", () => {
    $("query").value = example.textContent;
    $("search-form").requestSubmit();
  });
}

// Back and Forward: show the search the URL holds, or the empty page.
window.addEventListener("popstate", () => showURLState());

function showURLState() {
  const state = stateFromURL();
  if (!state.collection) state.collection = $("collection").value;
  showState(state);
  if (state.q) runSearch(state);
  else showEmpty();
}

loadCollections().then(showURLState);
