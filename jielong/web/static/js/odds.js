// The live readout of the chance to win, in the status line, for a player who
// switches it on: a while after each change of the game (so quick play asks
// nothing), a hint is asked for in the background; the server computes it in
// its hint workers, and the next move aborts the request, so it never holds up
// a move. A hint asked for at the same version takes this answer at once.
import { api } from "./api.js";

const KEY = "jielong.odds";
const QUIET_MS = 1200;
let input = null;
let timer = 0;
let ctl = null;
let known = null; // { id, version, answer }

export function attachOddsSwitch(el, repaint) {
  input = el;
  if (!el) return;
  try {
    el.checked = localStorage.getItem(KEY) === "1";
  } catch {
    // storage may be unavailable (private mode): the switch starts off
  }
  el.addEventListener("change", () => {
    try {
      localStorage.setItem(KEY, el.checked ? "1" : "0");
    } catch {
      // kept for this page only
    }
    repaint();
  });
}

export function oddsOn() {
  return Boolean(input?.checked);
}

export function cancelOdds() {
  clearTimeout(timer);
  timer = 0;
  if (ctl) ctl.abort();
  ctl = null;
}

// After each change of the game: ask again once the player pauses.
export function refreshOdds(game, repaint) {
  cancelOdds();
  if (!oddsOn() || !game || game.flags.won || oddsFor(game)) return;
  timer = setTimeout(async () => {
    timer = 0;
    const c = new AbortController();
    ctl = c;
    try {
      const res = await api.hint(game.id, game.version, c.signal);
      if (res.status === 200 && !c.signal.aborted) {
        known = { id: game.id, version: game.version, answer: res.body };
        repaint();
      }
    } catch {
      // aborted by a move, or the network: the readout waits for the next change
    } finally {
      if (ctl === c) ctl = null;
    }
  }, QUIET_MS);
}

// The background answer for this very version of the game, if any.
export function oddsFor(game) {
  return known && game && known.id === game.id && known.version === game.version ? known.answer : null;
}
