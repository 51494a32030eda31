// Keyboard play: arrows move the focus and the run start, Enter (Space in
// FreeCell) picks up and drops, letters for the actions.
import { variant } from "./i18n.js";

// Inputs that take typed text keep their keys; a switch or a button with the
// focus (after a click, say) leaves the letter commands to the table.
const NOT_TEXT = new Set(["checkbox", "radio", "button", "submit", "reset", "range", "color"]);

function typing(target) {
  if (!(target instanceof Element)) return false;
  if (target.closest("textarea, select, [contenteditable]")) return true;
  const input = target.closest("input");
  return Boolean(input) && !NOT_TEXT.has(input.type);
}

export function attachKeys(board, h) {
  board.addEventListener("focusin", (e) => {
    const pile = e.target.closest?.("[data-pile]");
    if (pile) h.focusIn(pile.dataset.pile);
  });
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    const onBoard = e.target === document.body || board.contains(e.target);
    const key = e.key;
    const klondike = variant.family === "klondike";
    let handled = true;
    if (onBoard && key === "ArrowLeft") h.focusStep(-1);
    else if (onBoard && key === "ArrowRight") h.focusStep(1);
    else if (onBoard && key === "ArrowUp") h.runStep(1);
    else if (onBoard && key === "ArrowDown") h.runStep(-1);
    else if (onBoard && (key === "Enter" || (key === " " && !klondike))) h.activate();
    else if (onBoard && key === " " && klondike) h.draw();
    else if (key === "Escape") h.escape();
    else if (key === "u" || key === "U") h.undo();
    else if (key === "h" || key === "H") h.hint();
    else if (key === "n" || key === "N") h.newGame();
    else if (key === "f" || key === "F") h.finish();
    else if (key === "d" || key === "D") h.demo();
    else handled = false;
    if (handled) e.preventDefault();
  });
}
