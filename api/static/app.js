// The search page: plain JavaScript over the REST API, no build step.
"use strict";

const $ = (id) => document.getElementById(id);
const keyInput = $("api-key");
keyInput.value = localStorage.getItem("embedstore-key") || "";
keyInput.addEventListener("change", () => {
  localStorage.setItem("embedstore-key", keyInput.value);
  loadCollections();
});

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
    $("status").textContent = collections.length ? "" : "No collection yet: run `embedstore index PATH`.";
  } catch (err) {
    $("status").textContent = `Could not list collections: ${err.message}`;
  }
}

function renderHit(hit, rank) {
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

$("search-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = $("collection").value;
  const mode = document.querySelector("input[name=mode]:checked").value;
  const query = $("query").value.trim();
  if (!name || !query) return;
  $("status").textContent = "Searching…";
  const started = performance.now();
  try {
    const data = await api(`/v1/collections/${encodeURIComponent(name)}/search`, {
      query, k: 10, mode, highlight: true,
    });
    $("results").replaceChildren(...data.results.map((hit, i) => renderHit(hit, i + 1)));
    // The Map view (map.js) rings these results' points.
    document.dispatchEvent(new CustomEvent("search-results", { detail: data.results }));
    const ms = Math.round(performance.now() - started);
    $("status").textContent = `${data.results.length} results in ${ms} ms`;
  } catch (err) {
    $("results").replaceChildren();
    $("status").textContent = `Error: ${err.message}`;
  }
});

loadCollections();
