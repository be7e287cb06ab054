// The results list: hits as compact cards, a member under its class, query terms marked.
// Uses `urlOf`, `stateFromURL`, `openFile` and `collectionURL` from app.js.
"use strict";

// Code lines a folded hit shows: its first line and the start of the matched piece, so
// five separate cards fit a laptop's screen (at 5 lines, 4.8 did: members rank above their
// class now, so they seldom share its card); the rest unfolds on demand.
const SHOWN_LINES = 4;

// A hit inside another hit of the same file (a method in its class): shown under it, once.
function contains(outer, inner) {
  return outer !== inner && outer.collection === inner.collection && outer.path === inner.path &&
    outer.start_line <= inner.start_line && inner.end_line <= outer.end_line &&
    outer.end_line - outer.start_line > inner.end_line - inner.start_line;
}

// [{head, members}] in the order of each group's best hit; a hit is {hit, rank} (0-based rank
// in the server's list, which the map uses to point at it).
function groupHits(results) {
  const ranked = results.map((hit, rank) => ({ hit, rank }));
  const groups = new Map();  // the outermost hit -> its group
  const order = [];
  for (const item of ranked) {
    const outer = ranked.filter((o) => contains(o.hit, item.hit))
      .reduce((a, b) => (!a || b.hit.end_line - b.hit.start_line > a.hit.end_line - a.hit.start_line ? b : a), null);
    const head = outer || item;
    if (!groups.has(head)) {
      groups.set(head, { head, members: [] });
      order.push(groups.get(head));
    }
    if (outer) groups.get(head).members.push(item);
  }
  return order;
}

function renderResults(results, terms, withCollection) {
  return groupHits(results).map((group, i) => {
    const article = document.createElement("article");
    article.className = "hit unit";
    article.tabIndex = -1;  // j/k move the focus here; Tab goes through its links
    article.dataset.rank = String(group.head.rank);
    const best = [group.head, ...group.members].reduce((a, b) => (b.rank < a.rank ? b : a));
    // Above its members, a class shows only its own first line until unfolded.
    renderUnit(article, group.head, `${i + 1}. `, { terms, withCollection, tag: "h2",
      lines: group.members.length ? 1 : SHOWN_LINES });
    for (const member of group.members) {
      const section = document.createElement("section");
      section.className = "member unit";
      section.dataset.rank = String(member.rank);
      renderUnit(section, member, "", { terms, withCollection, tag: "h3", lines: SHOWN_LINES });
      article.append(section);
    }
    // Enter on the card opens its best hit.
    const bestBox = best === group.head ? article : article.querySelector(`.member[data-rank="${best.rank}"]`);
    bestBox.querySelector(".location a").classList.add("primary");
    return article;
  });
}

// One hit into `box`: a header line (location, collection, symbol, kind, score, buttons),
// then its code folded to `lines` lines.
function renderUnit(box, { hit }, prefix, { terms, withCollection, tag, lines }) {
  const head = document.createElement(tag);
  head.className = "head";
  // The path opens the file at this definition, the matched lines marked; a real link, so
  // it opens in a tab too.
  const view = {
    collection: hit.collection, path: hit.path, start: hit.start_line, end: hit.end_line,
    marked: [hit.match_start_line, hit.match_end_line],
  };
  const where = document.createElement("span");
  where.className = "location";
  const link = document.createElement("a");
  link.textContent = placeOf(hit);
  if (opensAtPage(hit)) {
    // A PDF opens in the browser's own viewer, at the hit's page.
    link.href = rawURL(hit);
    link.target = "_blank";
    link.rel = "noopener";
  } else {
    link.href = urlOf({ ...stateFromURL(), view });
    link.addEventListener("click", (event) => {
      if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      openFile(view);
    });
  }
  const text = document.createElement("span");
  text.append(prefix, link);
  where.append(text);
  head.append(where);
  if (withCollection) head.append(span("collection", hit.collection));
  // A section says where it sits by its headings, code by its name.
  const name = hit.heading_path || hit.symbol;
  if (name) head.append(span("symbol", name));
  // A member whose class ranks after it names the class it lives in, unless it is shown in
  // that class's card (an h3 under the class's h2).
  if (hit.owner_header && tag !== "h3") head.append(span("owner", `in ${hit.owner_header}`));
  const meta = span("meta", `${hit.kind} · ${hit.score.toFixed(3)} · ${hit.found_by}`);
  meta.title = "kind · score · found by";
  // An editor opens `abs_path:line` where the file is on disk; else the indexed range.
  const copied = hit.anchor ? `${hit.abs_path || hit.path}#${hit.anchor}` :
    hit.abs_path ? `${hit.abs_path}:${hit.start_line}` : `${hit.path}:${hit.start_line}-${hit.end_line}`;
  head.append(meta);
  const code = document.createElement("div");
  code.className = "code hl";
  // The server's highlighter escapes the code and classes each line: "match" on the lines
  // of the matched piece.
  code.innerHTML = hit.html;
  if (terms) markTerms(code, terms);
  box.append(head, code);
  if (foldTo(code, lines)) head.append(moreButton(box, code));
  head.append(copyButton(copied));
}

// Where a hit is, as a person reads it: a document's page, slide or cell ("manual.pdf ·
// page 12"), a web page's heading id (classes.html#private-variables), else its lines.
const PLACES = ["page", "slide", "cell", "chapter"];
function placeOf(hit) {
  if (!hit.anchor) return `${hit.path}:${hit.start_line}-${hit.end_line}`;
  const [key, value] = hit.anchor.split("=");
  return PLACES.includes(key) && value ? `${hit.path} · ${key} ${value}` : `${hit.path}#${hit.anchor}`;
}

// A page of a PDF on disk: the file route serves the file itself, the fragment its page.
const opensAtPage = (hit) => Boolean(hit.abs_path && hit.anchor && hit.anchor.startsWith("page="));
const rawURL = (hit) => `${collectionURL(hit.collection)}/files/` +
  `${hit.path.split("/").map(encodeURIComponent).join("/")}?raw=true#${hit.anchor}`;

const span = (className, text) => {
  const element = document.createElement("span");
  element.className = className;
  element.textContent = text;
  return element;
};

// Fold `code` to its first line and the first lines of the matched piece (else of what the
// server's preview shows), `limit` lines in all, blank ones skipped. A shown line after
// hidden ones is marked "gap". Returns how many lines are hidden.
function foldTo(code, limit) {
  const lines = [...code.querySelectorAll(".line")];
  const blank = (line) => !line.textContent.replace(/^\s*\d+/, "").trim();
  const matched = lines.filter((line) => line.classList.contains("match"));
  const candidates = matched.length ? matched : lines.filter((line) => !line.classList.contains("folded"));
  const shown = new Set(lines.slice(0, 1));
  for (const line of candidates) {
    if (shown.size >= limit) break;
    if (!blank(line)) shown.add(line);
  }
  let hidden = 0;
  lines.forEach((line, i) => {
    const fold = !shown.has(line);
    line.classList.toggle("fold", fold);
    line.classList.toggle("gap", !fold && i > 0 && !shown.has(lines[i - 1]));
    hidden += fold;
  });
  return hidden;
}

// "+N lines" in the header of a folded hit; a click unfolds it (and folds it back).
function moreButton(box, code) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "more";
  const label = () => (box.classList.contains("open") ? "less" :
    `+${code.querySelectorAll(".line.fold").length} lines`);
  button.textContent = label();
  button.title = "show the whole definition";
  button.addEventListener("click", () => {
    box.classList.toggle("open");
    button.textContent = label();
  });
  return button;
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
