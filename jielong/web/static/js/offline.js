// When the server cannot be reached. Every move needs it, so the table says
// so in a bar and keeps the last position the server sent on screen; that
// position is also kept in local storage, so a table opened offline (from
// the service worker's shell) shows it too.
import { t, variant } from "./i18n.js";

const KEY = "jielong.last.";
let bar = null;

export function remember(state) {
  try {
    localStorage.setItem(KEY + variant.id, JSON.stringify(state));
  } catch {
    // storage may be full or unavailable: only the offline view loses out
  }
}

// The last state kept for this variant, if it is game `id` (any game when
// `id` is null).
export function lastState(id = null) {
  try {
    const state = JSON.parse(localStorage.getItem(KEY + variant.id) || "null");
    return state && (id === null || state.id === id) ? state : null;
  } catch {
    return null;
  }
}

export function unreachable() {
  if (!bar) {
    bar = document.createElement("div");
    bar.className = "offline-bar";
    bar.setAttribute("role", "status");
    bar.textContent = t("offline.needsServer");
    const main = document.querySelector("main") || document.body;
    main.prepend(bar);
  }
  bar.hidden = false;
  document.body.classList.add("offline");
}

export function reached() {
  if (bar) bar.hidden = true;
  document.body.classList.remove("offline");
}
