// Facet counts beside the results: by collection, language and top folder. They count the
// results returned (the API offers no counts of its own); a click searches again narrowed to
// that value (a filter in the URL, like the boxes under Options), a second click widens again.
// Uses `$`, `ALL` and `go` from app.js.
"use strict";

// Each path's folder one level below the folders all paths share ("flask/sansio/"), or null
// for a file right in the shared folder: the first level where the results differ is the one
// worth narrowing to (as the map colours by; embedstore/plot/points.py top_folders).
function topFolders(paths) {
  const parents = paths.map((path) => path.split("/").slice(0, -1));
  let shared = parents.length ? parents[0] : [];
  for (const parts of parents) {
    while (shared.some((part, i) => parts[i] !== part)) shared = shared.slice(0, -1);
  }
  return parents.map((parts) => (parts.length > shared.length ? `${parts.slice(0, shared.length + 1).join("/")}/` : null));
}

const countOf = (values) => {
  const counts = new Map();
  for (const value of values) if (value !== null) counts.set(value, (counts.get(value) || 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
};

// A list with the value added, or taken out when it is there.
const toggled = (list, value) => (list.includes(value) ? list.filter((v) => v !== value) : [...list, value]);

function renderFacets(results, state) {
  const box = $("facets");
  const groups = [];
  if (state.collection === ALL) {
    groups.push(facetGroup("Collection", countOf(results.map((hit) => hit.collection)),
      () => false, (name) => ({ ...state, collection: name })));
  }
  groups.push(facetGroup("Language", countOf(results.map((hit) => hit.language)),
    (language) => state.language.includes(language),
    (language) => ({ ...state, language: toggled(state.language, language) })));
  // A folder narrows by an include glob: "folder/**", what the include box takes.
  const folders = countOf(topFolders(results.map((hit) => hit.path)));
  // A folder narrowed to stays listed (pressed), so a click can widen again, though
  // its results now share it.
  for (const glob of state.include) {
    const folder = glob.endsWith("/**") ? glob.slice(0, -2) : null;
    if (folder && !folders.some(([name]) => name === folder)) {
      folders.unshift([folder, results.filter((hit) => hit.path.startsWith(folder)).length]);
    }
  }
  if (folders.length) {
    groups.push(facetGroup("Folder", folders, (folder) => state.include.includes(`${folder}**`),
      (folder) => ({ ...state, include: toggled(state.include, `${folder}**`) })));
  }
  box.replaceChildren(...groups);
  box.hidden = !results.length;
}

function facetGroup(title, counts, isOn, narrowed) {
  const group = document.createElement("section");
  group.className = "facet-group";
  const heading = document.createElement("h2");
  heading.textContent = title;
  const list = document.createElement("ul");
  for (const [value, count] of counts) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "facet";
    button.setAttribute("aria-pressed", String(isOn(value)));
    button.title = isOn(value) ? `Search again without ${value}` : `Search again in ${value} only`;
    const name = document.createElement("span");
    name.className = "facet-name";
    name.textContent = value;
    const number = document.createElement("span");
    number.className = "count";
    number.textContent = String(count);
    button.append(name, number);
    button.addEventListener("click", () => go(narrowed(value)));
    const item = document.createElement("li");
    item.append(button);
    list.append(item);
  }
  group.append(heading, list);
  return group;
}
