// When the server cannot be reached. With the engine on this device the game
// goes on here (engine/device.js) and a slim bar says so; without it the
// table keeps the last position the server sent on screen and says that
// play needs the server. That position is also kept in local storage, so a
// table opened offline (from the service worker's shell) shows it too.
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

function show(text, here) {
  if (!bar) {
    bar = document.createElement("div");
    bar.className = "offline-bar";
    bar.setAttribute("role", "status");
  }
  // while the device plays on, a word in the table's status row; else a
  // sentence over the page
  const status = here ? document.getElementById("status") : null;
  const home = status || document.querySelector("main") || document.body;
  if (bar.parentElement !== home) (status ? home.append(bar) : home.prepend(bar));
  if (here) {
    // a short word shown, the whole sentence said
    const short = document.createElement("span");
    short.setAttribute("aria-hidden", "true");
    short.textContent = t("offline.onDeviceShort");
    const said = document.createElement("span");
    said.className = "sr-only";
    said.textContent = text;
    bar.replaceChildren(short, said);
    bar.title = text;
  } else {
    bar.textContent = text;
    bar.removeAttribute("title");
  }
  bar.hidden = false;
  bar.classList.toggle("here", here);
  document.body.classList.add("offline");
}

let playingHere = false;

export function unreachable() {
  show(playingHere ? t("offline.onDevice") : t("offline.needsServer"), playingHere);
}

// The game is played by the engine on this device until the server is back.
export function onDevice() {
  playingHere = true;
  if (!navigator.onLine || (bar && !bar.hidden)) show(t("offline.onDevice"), true);
}

export function reached() {
  playingHere = false;
  if (bar) bar.hidden = true;
  document.body.classList.remove("offline");
}
