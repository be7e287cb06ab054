// Keys, as on the code hosts: `/` to the query, j/k to the next or previous result, Enter to
// open the focused one, Esc to close the file (or to leave the query box, so j/k work).
// Uses `$` and `panel` from app.js and `closeFile` from file.js.
"use strict";

const typingIn = (target) => target instanceof Element &&
  Boolean(target.closest("input, textarea, select, [contenteditable]"));

// The next (step 1) or previous (-1) result card from the focused one, focused.
function moveFocus(step) {
  const cards = [...document.querySelectorAll("#results > .hit")];
  if (!cards.length) return;
  const at = cards.indexOf(document.activeElement && document.activeElement.closest("#results > .hit"));
  const next = cards[at < 0 ? 0 : Math.min(cards.length - 1, Math.max(0, at + step))];
  next.focus({ preventScroll: true });
  next.scrollIntoView({ block: "nearest" });
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === "Escape") {
    if (panel === "file") {
      event.preventDefault();
      closeFile();
    } else if (typingIn(event.target)) {
      event.target.blur();
    }
    return;
  }
  if (typingIn(event.target)) return;
  if (event.key === "/") {
    event.preventDefault();
    $("query").focus();
    $("query").select();
  } else if ((event.key === "j" || event.key === "k") && panel === "results") {
    event.preventDefault();
    moveFocus(event.key === "j" ? 1 : -1);
  } else if (event.key === "Enter" && event.target instanceof Element && event.target.matches("#results > .hit")) {
    event.preventDefault();
    event.target.querySelector("a.primary").click();
  }
});
