// The file view: a whole file syntax-highlighted (GET .../files/{path}?highlight=true), its
// lines numbered; the hit's definition edged in the gutter and only its matched lines marked.
// A line number is a link: a click marks that line (`#L42`), a shift-click a range (`#L40-L52`),
// as on the code hosts. Uses `$`, `api`, `collectionURL`, `showPanel`, `stateFromURL`, `urlOf`
// and `go` from app.js.
"use strict";

let fileTicket = 0;
let shownFile = null;  // "collection\npath" of the file whose lines are on the page

// A hit's file opened from the page: a history entry of its own, so Back closes it.
function openFile(view) {
  go({ ...stateFromURL(), view }, { file: true });
}

async function showFile(view) {
  showPanel("file");
  const range = view.start ? `:${view.start}-${view.end}` : "";
  $("file-title").textContent = `${view.collection} · ${view.path}${range}`;
  const key = `${view.collection}\n${view.path}`;
  if (key === shownFile) {  // only the marks changed (a line number clicked, Back)
    markLines(view, false);
    return;
  }
  const code = $("file-code");
  code.replaceChildren();
  shownFile = null;
  const ticket = ++fileTicket;
  let file;
  try {
    const path = view.path.split("/").map(encodeURIComponent).join("/");
    file = await api(`${collectionURL(view.collection)}/files/${path}?highlight=true`);
  } catch (err) {
    if (ticket === fileTicket) code.textContent = `Cannot show ${view.path}: ${err.message}`;
    return;
  }
  if (ticket !== fileTicket) return;
  code.append(numberedLines(file.html_lines));
  shownFile = key;
  markLines(view, true);
}

function numberedLines(htmlLines) {
  const width = String(htmlLines.length).length;
  const fragment = document.createDocumentFragment();
  htmlLines.forEach((html, i) => {
    const number = i + 1;
    const line = document.createElement("span");
    line.className = "line";
    line.id = `L${number}`;
    const label = document.createElement("a");
    label.className = "linenos";
    label.href = `#L${number}`;
    label.textContent = String(number).padStart(width);
    const text = document.createElement("span");
    text.className = "text";
    text.innerHTML = html;  // the server's highlighter escaped the code
    line.append(label, text);
    fragment.append(line);
  });
  return fragment;
}

// Edge the definition's lines, mark the marked ones; scroll to them on opening.
function markLines(view, scroll) {
  const lines = $("file-code").children;
  const [first, last] = view.marked || [0, -1];
  for (let i = 0; i < lines.length; i++) {
    const number = i + 1;
    lines[i].classList.toggle("in-unit", Boolean(view.start) && number >= view.start && number <= view.end);
    lines[i].classList.toggle("selected", number >= first && number <= last);
  }
  const target = lines[(view.marked ? first : view.start || 1) - 1];
  if (scroll && target) target.scrollIntoView({ block: "center" });
}

// A line number clicked: mark that line, or with Shift the range from the marked one.
// The URL's hash changes in place: Back still closes the file.
// (document.getElementById: this script runs before app.js defines `$`.)
document.getElementById("file-code").addEventListener("click", (event) => {
  const label = event.target.closest("a.linenos");
  if (!label || event.ctrlKey || event.metaKey) return;
  event.preventDefault();
  const number = Number(label.hash.slice(2));
  const state = stateFromURL();
  const from = event.shiftKey && state.view.marked ? state.view.marked[0] : number;
  const marked = [Math.min(from, number), Math.max(from, number)];
  history.replaceState(history.state, "", urlOf({ ...state, view: { ...state.view, marked } }));
  markLines({ ...state.view, marked }, false);
});

function closeFile() {
  // Opened from this page: Back returns to where it was, scroll included.
  if (history.state && history.state.file) history.back();
  else go({ ...stateFromURL(), view: null });
}

document.getElementById("file-close").addEventListener("click", closeFile);
