// The table's controller: loads the game, turns gestures into actions, keeps
// the view state, and schedules one redraw per frame. No rules here: what may
// be played comes from the server's `moves`.
import { api } from "./api.js";
import { installSprite } from "./cardart.js";
import { cardName, t, variant } from "./i18n.js";
import { attachPointer, snapBack } from "./input.js";
import { attachKeys } from "./keys.js";
import { computeLayout } from "./layout.js";
import { RunOverlay } from "./overlay.js";
import * as P from "./panels.js";
import { draw, ghost, markDests, motionAllowed } from "./render.js";
import * as S from "./state.js";
import { attachDealBox } from "./dealbox.js";
import { initLangSwitch } from "./langswitch.js";
import { attachWinnableSwitch, newDealBody } from "./winnable.js";

const $ = (id) => document.getElementById(id);
const board = $("board");
const hosts = { status: $("status"), hintbar: $("hintbar"), actions: $("actions"), panel: $("panel") };
const toastEl = $("toast");

const view = {
  selection: null,
  dests: [],
  hint: null,
  hintPending: false,
  focus: null,
  keyboard: false,
  overlay: null,
  auto: false,
  viewBoard: false,
  animate: false,
  dealing: false,
};
let game = null;
let receivedAt = 0;
let hintCtl = null;
let frame = 0;
let animateNext = false;
const lastHTML = {};
const overlay = new RunOverlay(document.body, (act) => overlayAct(act));
const winnableOnly = attachWinnableSwitch($("winnable-only"));

// -- drawing ---------------------------------------------------------------

function schedule(animate = false) {
  animateNext = animateNext || animate;
  if (!frame) frame = requestAnimationFrame(flush);
}

function put(name, html) {
  if (lastHTML[name] === html) return;
  lastHTML[name] = html;
  hosts[name].innerHTML = html;
}

function elapsed() {
  const c = game.counters;
  return c.elapsed_ms + (c.clock_running && !game.flags.won ? performance.now() - receivedAt : 0);
}

function flush() {
  frame = 0;
  if (!game) return;
  view.animate = animateNext;
  animateNext = false;
  if (!view.focus || !S.pileOrder(game).includes(view.focus)) view.focus = S.pileOrder(game).at(-1);
  // bars first: the board takes the height they leave
  put("status", P.statusHTML(game, elapsed()));
  put("actions", P.actionsHTML(game, view));
  put("hintbar", P.hintbarHTML(game, view));
  put("panel", P.panelHTML(game, view));
  const layout = computeLayout(game, board.clientWidth, board.clientHeight);
  draw(board, game, view, layout);
  // for bench/page_speed.py: when the first playable board was drawn
  if (!performance.getEntriesByName("jielong:board").length) performance.mark("jielong:board");
  document.body.classList.toggle("has-panel", Boolean(lastHTML.panel));
}

function tick() {
  if (game) put("status", P.statusHTML(game, elapsed()));
}

let toastTimer = 0;
function toast(text) {
  toastEl.textContent = text;
  toastEl.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => toastEl.classList.remove("show"), 2600);
}

// -- the game and the server ------------------------------------------------

function storageKey(state) {
  return `jielong.game.${variant.id}${state.daily ? ".daily" : ""}`;
}

function adopt(state, animate = true) {
  const changed = !game || game.id !== state.id || game.version !== state.version;
  game = state;
  receivedAt = performance.now();
  if (changed) {
    view.selection = null;
    view.dests = [];
    view.viewBoard = false;
    closeOverlay();
    if (view.hint && view.hint.version !== state.version) view.hint = null;
  }
  const url = new URL(location.href);
  if (url.searchParams.get("game") !== state.id || url.searchParams.has("deal") || url.searchParams.has("daily")) {
    url.search = `?game=${encodeURIComponent(state.id)}`;
    history.replaceState(null, "", url);
  }
  try {
    // the home and rules pages offer to continue an unfinished game
    if (state.flags.won) localStorage.removeItem(storageKey(state));
    else localStorage.setItem(storageKey(state), state.id);
  } catch {
    // storage may be unavailable (private mode); the URL still holds the game
  }
  schedule(animate && changed);
}

async function request(promise) {
  try {
    return await promise;
  } catch (e) {
    if (e?.name !== "AbortError") toast(t("error.network"));
    return null;
  }
}

function showError(res) {
  toast(res?.body?.error?.message || t("error.network"));
}

async function act(data) {
  if (!game) return false;
  cancelHint();
  const res = await request(api.act(game.id, { version: game.version, ...data }));
  if (!res) return false;
  if (res.status === 200) {
    adopt(res.body);
    return true;
  }
  const state = res.body?.state || res.body?.error?.state;
  if (res.status === 409 && state) {
    adopt(state, false);
    return false;
  }
  showError(res);
  schedule();
  return false;
}

async function sendMove(move, dragged = null) {
  view.selection = null;
  view.dests = [];
  const ok = await act({ type: "move", ...move });
  if (!ok && dragged) snapBack(dragged);
  return ok;
}

async function newGame(body) {
  // one new deal at a time: a winnable one can take the server a moment
  if (view.dealing) return;
  view.dealing = true;
  schedule();
  const res = await request(api.create({ variant: variant.id, ...newDealBody(body, winnableOnly()) }));
  view.dealing = false;
  schedule();
  if (!res) return;
  if (res.status === 200 || res.status === 201) adopt(res.body);
  else {
    showError(res);
    if (!game) await newGame({});
  }
}

async function load() {
  const params = new URLSearchParams(location.search);
  const id = params.get("game");
  if (id) {
    const res = await request(api.get(id));
    if (res?.status === 200) return adopt(res.body, false);
    toast(t("error.notFound"));
    return newGame({});
  }
  if (params.has("deal")) {
    const deal = Number(params.get("deal"));
    if (Number.isInteger(deal)) return newGame({ deal });
    toast(t("deal.invalid"));
  }
  if (params.get("daily")) return newGame({ daily: true });
  return newGame({});
}

// -- hints ------------------------------------------------------------------

function cancelHint() {
  if (hintCtl) hintCtl.abort();
  hintCtl = null;
  if (view.hintPending) {
    view.hintPending = false;
    schedule();
  }
}

async function hint() {
  if (!game || game.flags.won) return;
  const shown = view.hint;
  if (variant.hintPlaysOnSecondClick && shown?.move && shown.version === game.version) {
    view.hint = null;
    // a run longer than the hand may move comes with the single-card steps that carry it
    return sendMove(shown.steps?.length ? { ...shown.move, steps: shown.steps } : shown.move);
  }
  cancelHint();
  const ctl = new AbortController();
  hintCtl = ctl;
  const version = game.version;
  view.hint = null;
  view.hintPending = true;
  schedule();
  const res = await request(api.hint(game.id, version, ctl.signal));
  if (hintCtl === ctl) {
    hintCtl = null;
    view.hintPending = false;
  }
  if (ctl.signal.aborted || !res || game.version !== version) return schedule();
  if (res.status === 200) {
    const answer = res.body;
    if (answer.kind === "none" || (!answer.move && !["no_progress", "unsolvable"].includes(answer.kind))) {
      toast(t("hint.none"));
    } else {
      view.hint = { ...answer, version };
      if (answer.move) ghost(board, answer.move);
    }
  } else if (res.status === 429 || res.status === 503) toast(t("hint.busy"));
  else if (res.status !== 409) toast(res.body?.error?.message || t("hint.failed"));
  schedule();
}

// -- auto-complete ----------------------------------------------------------

async function autocomplete() {
  if (view.auto) {
    view.auto = false;
    return schedule();
  }
  view.auto = true;
  schedule();
  while (view.auto && game && game.flags.autocomplete && !game.flags.won) {
    const ok = await act({ type: "autocomplete_step" });
    if (!ok) break;
    await new Promise((r) => setTimeout(r, motionAllowed() ? 120 : 0));
  }
  view.auto = false;
  schedule();
}

function finish() {
  if (!game) return;
  if (variant.finishing === "autocollect") {
    if (game.flags.autocollect) act({ type: "autocollect" });
  } else if (view.auto || game.flags.autocomplete) autocomplete();
}

// -- selection and gestures -------------------------------------------------

function pileState(pile) {
  const [kind, index] = pile.split(":");
  return kind === "tableau" ? game.position.tableau[Number(index)] : null;
}

// How many cards a press on card `index` of `pile` picks up (0: none).
function countFrom(pile, index) {
  if (index === null || index === undefined) return 0;
  const kind = pile.split(":")[0];
  if (kind === "tableau") {
    const p = pileState(pile);
    return index >= p.down ? p.down + p.up.length - index : 0;
  }
  if (kind === "waste") return index === game.position.waste.length - 1 ? 1 : 0;
  return S.faceUp(game, pile).length ? 1 : 0;
}

function clearSelection() {
  view.selection = null;
  view.dests = [];
  schedule();
}

function select(pile, count) {
  view.selection = { pile, count };
  view.dests = S.destinations(game, pile, count);
  const up = S.faceUp(game, pile);
  // screen readers hear what was picked up
  if (up.length >= count) $("announce").textContent = t("board.selected", { card: cardName(up[up.length - count]), n: count });
  schedule();
}

function sourceClick(pile, count) {
  const plan = S.clickPlan(game, pile, count, variant.family);
  // a foundation card only ever moves when asked twice: never by one stray tap
  if (plan.kind === "send" && !pile.startsWith("foundation:")) return sendMove(plan.move);
  select(pile, count);
}

function drawStock() {
  clearSelection();
  return act({ type: "draw" });
}

function target(pile, index) {
  const sel = view.selection;
  if (pile === sel.pile) {
    const count = countFrom(pile, index);
    if (count && count !== sel.count) return sourceClick(pile, count);
    return clearSelection();
  }
  // a legal target plays; any other pile is a refused drop: the server says
  // why, nothing changes, and the selection is dropped
  return sendMove({ from: sel.pile, to: pile, count: sel.count });
}

function tap(pile, index) {
  if (!game) return;
  view.keyboard = false;
  view.focus = pile;
  closeOverlay();
  if (pile === "stock") return drawStock();
  if (view.selection) return target(pile, index);
  const count = countFrom(pile, index);
  if (count) sourceClick(pile, count);
  else schedule();
}

function openOverlay(pile, count, anchor) {
  const p = pileState(pile);
  if (!p || !p.up.length) return false;
  count = Math.max(1, Math.min(count, p.up.length));
  view.overlay = { pile, count, max: p.up.length };
  view.selection = null;
  view.dests = [];
  overlay.show(overlayRun(), anchor);
  schedule();
  return true;
}

function overlayRun() {
  const { pile, count, max } = view.overlay;
  const up = pileState(pile).up;
  return { card: up[up.length - count], count, max, limit: S.handLimit(game) };
}

function closeOverlay() {
  if (!view.overlay) return;
  view.overlay = null;
  overlay.hide();
  schedule();
}

function overlayAct(act) {
  const run = view.overlay;
  if (!run) return;
  if (act === "close") return closeOverlay();
  if (act === "confirm") {
    closeOverlay();
    return select(run.pile, run.count);
  }
  run.count = Math.max(1, Math.min(run.max, run.count + (act === "up" ? 1 : -1)));
  overlay.show(overlayRun());
  schedule();
}

function pileAnchor(pile) {
  const r = board.querySelector(`[data-pile="${pile}"]`)?.getBoundingClientRect();
  return r ? { x: r.left + r.width / 2, y: r.top + r.width * 3.2 } : null;
}

attachPointer(board, {
  pickable(pile, index) {
    if (!game || pile === "stock") return null;
    let count = countFrom(pile, index);
    const sel = view.selection;
    if (sel && sel.pile === pile && count && count < sel.count) count = sel.count;
    if (!count) return null;
    const kind = pile.split(":")[0];
    let startIndex = 0;
    if (kind === "tableau") {
      const p = pileState(pile);
      startIndex = p.down + p.up.length - count;
    } else if (kind === "waste") startIndex = game.position.waste.length - 1;
    return { count, startIndex };
  },
  dragStart(pile, count) {
    cancelHint();
    closeOverlay();
    view.dests = S.destinations(game, pile, count);
    markDests(board, view.dests, null);
  },
  dragOver(over) {
    markDests(board, view.dests, view.dests.includes(over) ? over : null);
  },
  dragEnd() {
    view.dests = view.selection ? S.destinations(game, view.selection.pile, view.selection.count) : [];
    schedule();
  },
  drop(from, count, to, dragged) {
    const legal = S.destinations(game, from, count).includes(to);
    if (!to || to === from || to === "stock") {
      snapBack(dragged);
      view.dests = view.selection ? view.dests : [];
      return schedule();
    }
    if (!legal) snapBack(dragged);
    sendMove({ from, to, count }, legal ? dragged : null);
  },
  tap,
  longPress(pile, index, x, y) {
    if (!game || !pile.startsWith("tableau:")) return false;
    cancelHint();
    return openOverlay(pile, countFrom(pile, index) || 1, { x, y });
  },
  overlaySlide: (x, y) => overlay.slide(x, y),
  overlayRelease: (x, y) => overlayAct(overlay.release(x, y)),
});

// -- keyboard ---------------------------------------------------------------

function activate() {
  const pile = view.focus;
  if (view.overlay && view.overlay.pile === pile) return overlayAct("confirm");
  closeOverlay();
  if (pile === "stock") return drawStock();
  if (view.selection) {
    if (pile === view.selection.pile) return clearSelection();
    return sendMove({ from: view.selection.pile, to: pile, count: view.selection.count });
  }
  if (countFrom(pile, pile.startsWith("tableau:") ? lastIndex(pile) : pile === "waste" ? game.position.waste.length - 1 : 0)) {
    return sourceClick(pile, 1);
  }
}

function lastIndex(pile) {
  const p = pileState(pile);
  return p.down + p.up.length - 1;
}

function escape() {
  if (view.overlay) return closeOverlay();
  if (lastHTML.panel && game?.flags.won) {
    view.viewBoard = true;
    return schedule();
  }
  if (view.hint) view.hint = null;
  clearSelection();
}

attachKeys(board, {
  focusStep(step) {
    if (!game) return;
    closeOverlay();
    view.keyboard = true;
    view.focus = S.nextFocus(S.pileOrder(game), view.focus, step);
    schedule();
  },
  runStep(step) {
    if (!game || !view.focus?.startsWith("tableau:")) return;
    view.keyboard = true;
    if (view.overlay && view.overlay.pile === view.focus) return overlayAct(step > 0 ? "up" : "down");
    if (step > 0) openOverlay(view.focus, 2, pileAnchor(view.focus));
  },
  activate() {
    if (!game) return;
    view.keyboard = true;
    activate();
  },
  draw: () => game && variant.family === "klondike" && drawStock(),
  escape,
  undo: () => act({ type: "undo" }),
  hint,
  newGame: () => newGame({}),
  finish,
  focusIn(pile) {
    view.focus = pile;
    view.keyboard = true;
  },
});

// -- buttons, forms, clock --------------------------------------------------

async function command(name) {
  if (!game) return;
  switch (name) {
    case "undo":
      return act({ type: "undo" });
    case "hint":
      return hint();
    case "new":
    case "again":
      return newGame({});
    case "restart":
      return act({ type: "restart" });
    case "autocomplete":
    case "stop":
      return autocomplete();
    case "autocollect":
      return act({ type: "autocollect" });
    case "view":
      view.viewBoard = true;
      return schedule();
    case "dismiss":
      view.hint = null;
      return schedule();
    case "copy":
      try {
        await navigator.clipboard.writeText(game.deal_id);
        toast(t("win.copied", { id: game.deal_id }));
      } catch {
        toast(game.deal_id);
      }
      return undefined;
    default:
      return undefined;
  }
}

document.addEventListener("click", (e) => {
  const button = e.target.closest("button[data-act]");
  if (!button || button.closest(".run-overlay") || !document.querySelector("main.play")?.contains(button)) return;
  command(button.dataset.act);
});

attachDealBox(hosts.actions, { toast, request, open: (deal) => newGame({ deal }) });

document.addEventListener("visibilitychange", async () => {
  if (!game || game.flags.won) return;
  const res = await request(api.clock(game.id, !document.hidden));
  if (res?.status === 200) adopt(res.body, false);
});

window.addEventListener("resize", () => closeOverlay());
// rotation, resizing, fullscreen and bars that wrap all change the board's box
let boardSize = "";
new ResizeObserver(() => {
  const size = `${board.clientWidth}x${board.clientHeight}`;
  if (size !== boardSize) {
    boardSize = size;
    schedule();
  }
}).observe(board);
setInterval(tick, 500);

installSprite();
initLangSwitch();
load();
