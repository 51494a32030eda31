// The table's controller: loads the game, turns what the player asks for into
// actions, and adopts the answers: the server's, or the engine's on this
// device while the server cannot be reached (engine/device.js). No rules
// here: what may be played comes from the answer's `moves`.
import { api } from "./api.js";
import { start as startEngine, whenReady } from "./engine/client.js";
import * as device from "./engine/device.js";
import { ask } from "./confirm.js";
import { cardName, t, variant } from "./i18n.js";
import { snapBack } from "./input.js";
import { lastState, onDevice, reached, remember, unreachable } from "./offline.js";
import { RunOverlay, faceUpBox } from "./overlay.js";
import { $, board, panelShown, schedule, showProblem, toast } from "./paint.js";
import { ghost, motionAllowed } from "./render.js";
import { dealValue } from "./dealbox.js";
import * as S from "./state.js";
import { celebrate, skipCelebration } from "./winfx.js";
import { attachWinnableSwitch, newDealBody } from "./winnable.js";
import { attachOddsSwitch, cancelOdds, oddsFor, refreshOdds } from "./odds.js";

const { table } = S;
const view = table.view;
let hintCtl = null;
const overlay = new RunOverlay(document.body, (name) => overlayAct(name));
const winnableOnly = attachWinnableSwitch($("winnable-only"));
attachOddsSwitch($("show-odds"), () => {
  refreshOdds(table.game, schedule);
  schedule();
});

export const runOverlay = overlay;

// -- the game and the server ------------------------------------------------

function storageKey(state) {
  return `jielong.game.${variant.id}${state.daily ? ".daily" : ""}`;
}

// The server's last answer is `table.confirmed`; what is drawn, `table.game`,
// is that answer with the actions still on their way painted over it.
const queue = [];
let sending = false;
// while a waiting input runs, the actions it asks for go before later ones
let insertAt = -1;

export function settled() {
  return !sending && queue.length === 0;
}

function reproject(animate) {
  let shown = table.confirmed;
  for (const entry of queue) {
    if (!entry.data || !shown) continue;
    shown = S.project(shown, entry.data, variant.draw) || shown;
  }
  table.game = shown;
  schedule(animate);
}

// A game that replaces another gets its own history entry: Back returns to
// the one before.
function rememberUrl(state, push) {
  const url = new URL(location.href);
  const params = url.searchParams;
  if (params.get("game") !== state.id || params.has("deal") || params.has("daily") || params.has("position")) {
    url.search = `?game=${encodeURIComponent(state.id)}`;
    if (push) history.pushState(null, "", url);
    else history.replaceState(null, "", url);
  }
  try {
    // the home and rules pages offer to continue an unfinished game
    if (state.flags.won) localStorage.removeItem(storageKey(state));
    else localStorage.setItem(storageKey(state), state.id);
  } catch {
    // storage may be unavailable (private mode); the URL still holds the game
  }
}

export function adopt(state, animate = true) {
  const old = table.confirmed;
  // an answer overtaken by a later one (the clock's, say) changes nothing
  if (old && old.id === state.id && state.version < old.version) return;
  const changed = !old || old.id !== state.id || old.version !== state.version;
  if (old && old.id !== state.id) {
    dropQueue();
    view.demo = null;
  }
  table.confirmed = state;
  table.receivedAt = performance.now();
  // the move that wins sets the cards cascading, once the board shows it
  if (old && old.id === state.id && !old.flags.won && state.flags.won) setTimeout(() => celebrate(board, state), 60);
  else if (changed) skipCelebration();
  if (changed) {
    view.selection = null;
    view.dests = [];
    view.viewBoard = false;
    closeOverlay();
    if (view.hint && view.hint.version !== state.version) view.hint = S.followHint(view.hint, state);
    refreshOdds(state, schedule);
  }
  rememberUrl(state, Boolean(old && old.id !== state.id));
  remember(state);
  reproject(animate && changed);
  // the engine on this device keeps the game too, for hints and for play
  // without the network
  if (changed && !here.has(state.id)) mirror(() => device.hold(state));
}

// The worker's copy follows the server's answers one at a time, in order.
let mirrorChain = Promise.resolve();
function mirror(work) {
  mirrorChain = mirrorChain.then(work).catch(() => {});
  return mirrorChain;
}

// Games whose actions are played on the device until the server has them.
const here = new Set();

async function playHere(game, data) {
  await mirrorChain;
  const res = await device.playHere(game, data);
  if (res) {
    here.add(game.id);
    onDevice();
  }
  return res;
}

function dropQueue() {
  for (const entry of queue.splice(0)) entry.resolve?.(false);
}

export async function request(promise) {
  try {
    const res = await promise;
    reached();
    return res;
  } catch (e) {
    // no answer at all: the server (or the network) is away
    if (e?.name !== "AbortError") unreachable();
    return null;
  }
}

// Offline with no game on the table: the game as this device keeps it,
// played on by the engine here; without an engine, the last position this
// browser was sent, on screen as it was.
async function showKept(id) {
  startEngine();
  const state = id ? await keptHere(id) : null;
  if (state) {
    onDevice();
    return adopt(state, false);
  }
  const kept = lastState(id);
  if (kept) adopt(kept, false);
  else showProblem(t("offline.needsServer"));
}

// The server's game in place of the device's copy, whatever their versions
// (the server counts a sync as one version).
function replaceWith(state) {
  dropQueue();
  table.confirmed = null;
  adopt(state, false);
}

// The games played on this device while the server was away go to it, one
// by one; the one on the table is adopted as the server has it now.
let syncing = false;
export async function syncDevice() {
  if (syncing) return;
  syncing = true;
  try {
    for (const entry of await device.allKept()) {
      if (!entry.pending.length && !device.isDeviceGame(entry.id)) continue;
      const done = await device.syncOne(entry);
      if (!done) break; // still away
      here.delete(entry.id);
      reached();
      const onTable = table.confirmed?.id === entry.id;
      if (done.refused) {
        if (onTable || done.state) toast(done.message ? t("sync.refused", { reason: done.message }) : t("sync.refusedPlain"));
        if (onTable && done.state) replaceWith(done.state);
        else if (onTable) newGame({});
      } else if (onTable && done.state) {
        replaceWith(done.state);
      }
    }
  } finally {
    syncing = false;
  }
}

// Back online: the device's games go to the server, then the game on the
// table is as the server has it now.
window.addEventListener("online", async () => {
  await syncDevice();
  const game = table.game;
  if (!game) return load();
  if (here.has(game.id)) return undefined;
  const res = await request(api.get(game.id));
  if (res?.status === 200) adopt(res.body, false);
});

function showError(res) {
  toast(res?.body?.error?.message || t("error.network"));
}

// Sends the queue's actions one at a time, each on the version the answer
// before it gave; an input that needed the move list runs when its turn comes.
async function pump() {
  if (sending) return;
  sending = true;
  while (queue.length && table.confirmed) {
    const entry = queue[0];
    if (entry.input) {
      queue.shift();
      table.game = table.confirmed;
      insertAt = 0;
      try {
        entry.input();
      } finally {
        insertAt = -1;
      }
      reproject(true);
      continue;
    }
    const game = table.confirmed;
    let res = here.has(game.id) ? null : await request(api.act(game.id, { version: game.version, ...entry.data }));
    // the server is away: the engine on this device plays it
    if (!res) res = await playHere(game, entry.data);
    if (queue[0] !== entry) continue; // a new game replaced the queue meanwhile
    queue.shift();
    if (res?.status === 200) {
      if (!here.has(game.id)) mirror(() => device.played(game, entry.data, res.body));
      adopt(res.body);
      entry.resolve(true);
      continue;
    }
    // refused, stale or lost: everything after it was built on it
    dropQueue();
    entry.resolve(false);
    const state = res?.body?.state || res?.body?.error?.state;
    if (res && res.status === 409 && state) {
      showError(res);
      adopt(state);
    } else {
      if (res) showError(res);
      reproject(true);
    }
  }
  sending = false;
}

function enqueue(entry) {
  if (insertAt >= 0) queue.splice(insertAt++, 0, entry);
  else queue.push(entry);
}

// Runs an input now if the page knows the move list, else in its turn.
export function whenSettled(input) {
  if (settled()) return input();
  enqueue({ input });
  return undefined;
}

export function act(data) {
  if (!table.confirmed) return Promise.resolve(false);
  cancelHint();
  cancelOdds();
  return new Promise((resolve) => {
    enqueue({ data, resolve });
    // paint first: the position the action leads to is drawn in this frame
    if (insertAt < 0) reproject(true);
    pump();
  });
}

export async function sendMove(move, dragged = null) {
  view.selection = null;
  view.dests = [];
  const ok = await act({ type: "move", ...move });
  if (!ok && dragged) snapBack(dragged);
  return ok;
}

export async function newGame(body) {
  // one new deal at a time: a winnable one can take the server a moment
  if (view.dealing) return;
  view.dealing = true;
  schedule();
  const asked = { variant: variant.id, ...newDealBody(body, winnableOnly()) };
  let res = await request(api.create(asked));
  // the server is away: the engine on this device deals (a shared position
  // waits for the server)
  if (!res && !asked.position && !asked.deal_id) {
    startEngine();
    if (await whenReady()) res = await device.dealHere(asked);
    if (res?.status === 201) {
      here.add(res.body.id);
      onDevice();
    }
  }
  view.dealing = false;
  schedule();
  if (!res) {
    if (!table.game) showKept(null);
    return;
  }
  if (res.status === 200 || res.status === 201) adopt(res.body);
  // with no game on the table yet, the reason stays up until the player
  // picks another deal: nothing is dealt in place of the one asked for
  else if (table.game) showError(res);
  else showProblem(res?.body?.error?.message || t("error.network"));
}

// Replacing a game with moves made asks first (won and stuck games do not).
export async function replaceGame(body) {
  const g = table.confirmed;
  if (g && !g.flags.won && !g.flags.no_legal_move && g.counters.moves > 0) {
    const fresh = await ask({
      title: t("confirm.newTitle"),
      body: t("confirm.newBody", { n: g.counters.moves }),
      yes: t("confirm.newYes"),
      no: t("confirm.keep"),
    });
    if (!fresh) return;
  }
  return newGame(body);
}

// The unfinished game with moves this browser keeps for the variant, if any.
async function unfinished() {
  let id = null;
  try {
    id = localStorage.getItem(`jielong.game.${variant.id}`);
  } catch {
    return null;
  }
  if (!id) return null;
  const res = device.isDeviceGame(id) ? null : await request(api.get(id));
  const g = res?.status === 200 ? res.body : res ? null : await keptHere(id);
  return g && !g.flags.won && g.counters.moves > 0 ? g : null;
}

// A game this device keeps, opened in its engine (offline, or dealt here).
async function keptHere(id) {
  const entry = await device.kept(id);
  if (!entry || !(await whenReady())) return null;
  const state = await device.reopen(id);
  if (state && (entry.pending.length || device.isDeviceGame(id))) {
    here.add(id);
    onDevice();
  }
  return state;
}

export async function load() {
  // what this device played while the server was away goes to it first
  await syncDevice();
  const params = new URLSearchParams(location.search);
  const id = device.renamed(params.get("game"));
  if (id && device.isDeviceGame(id)) {
    const state = await keptHere(id);
    if (state) return adopt(state, false);
  }
  if (id) {
    const res = await request(api.get(id));
    if (res?.status === 200) return adopt(res.body, false);
    if (!res) return showKept(id);
    toast(t("error.notFound"));
    return newGame({});
  }
  // the number goes as typed: the server checks it and says what is wrong
  if (params.has("deal")) return newGame({ deal: dealValue(params.get("deal")) });
  if (params.get("daily")) return newGame({ daily: true });
  // a shared link: the position it carries starts a new game (never counted)
  if (params.get("position")) return newGame({ position: params.get("position") });
  // a plain visit (the home and rules pages' Play) over a game left
  // unfinished shows that game, and the player says whether to leave it
  const kept = await unfinished();
  if (kept) {
    adopt(kept, false);
    const fresh = await ask({
      title: t("confirm.resumeTitle"),
      body: t("confirm.resumeBody", { n: kept.counters.moves }),
      yes: t("confirm.newYes"),
      no: t("confirm.resume"),
    });
    if (!fresh) return undefined;
  }
  return newGame({});
}

export async function clockRunning(running) {
  const game = table.game;
  if (!game || game.flags.won) return;
  if (here.has(game.id)) {
    const state = await device.clockHere(game, running);
    if (state) adopt(state, false);
    return;
  }
  const res = await request(api.clock(game.id, running));
  if (res?.status === 200) adopt(res.body, false);
}

// -- hints ------------------------------------------------------------------

export function cancelHint() {
  if (hintCtl) hintCtl.abort();
  hintCtl = null;
  if (view.hintPending) {
    view.hintPending = false;
    schedule();
  }
}

export function hint() {
  whenSettled(hintNow);
}

async function hintNow() {
  const game = table.confirmed;
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
  // the live readout may have this very hint already
  const ready = oddsFor(game);
  const res = ready ? { status: 200, body: ready } : await request(api.hint(game.id, version, ctl.signal));
  if (hintCtl === ctl) {
    hintCtl = null;
    view.hintPending = false;
  }
  if (ctl.signal.aborted || !res || table.confirmed.version !== version || !settled()) return schedule();
  if (res.status === 200) {
    const answer = res.body;
    if (answer.kind === "none" || (!answer.move && !["no_progress", "unsolvable", "exhausted"].includes(answer.kind))) {
      toast(t("hint.none"));
    } else {
      view.hint = { ...answer, version };
      if (answer.move) ghost(board, answer.move);
    }
  } else if (res.body?.error?.code === "device_unanswered") toast(t("hint.deviceUnanswered"));
  else if (res.status === 429 || res.status === 503) toast(t("hint.busy"));
  else if (res.status !== 409) toast(res.body?.error?.message || t("hint.failed"));
  schedule();
}

// -- finishing --------------------------------------------------------------

async function autocomplete() {
  if (view.auto) {
    view.auto = false;
    return schedule();
  }
  view.auto = true;
  schedule();
  while (view.auto && table.game && table.game.flags.autocomplete && !table.game.flags.won) {
    const ok = await act({ type: "autocomplete_step" });
    if (!ok) break;
    await new Promise((r) => setTimeout(r, motionAllowed() ? 120 : 0));
  }
  view.auto = false;
  schedule();
}

export function finish() {
  const game = table.game;
  if (!game) return;
  if (variant.finishing === "autocollect") {
    if (game.flags.autocollect) act({ type: "autocollect" });
  } else if (view.auto || game.flags.autocomplete) autocomplete();
}

// -- selection --------------------------------------------------------------

export function clearSelection() {
  view.selection = null;
  view.dests = [];
  schedule();
}

function select(pile, count) {
  const game = table.game;
  view.selection = { pile, count };
  view.dests = S.destinations(game, pile, count);
  const up = S.faceUp(game, pile);
  // screen readers hear what was picked up
  if (up.length >= count) $("announce").textContent = t("board.selected", { card: cardName(up[up.length - count]), n: count });
  schedule();
}

// Returns true when the click sent a move.
function sourceClick(pile, count) {
  const plan = S.clickPlan(table.game, pile, count, variant.family);
  // a foundation card only ever moves when asked twice: never by one stray tap
  if (plan.kind === "send" && !pile.startsWith("foundation:")) {
    sendMove(plan.move);
    return true;
  }
  select(pile, count);
  return false;
}

// The selected card goes home if it can; else the selection is dropped.
function homeOrDrop(pile, count) {
  const home = S.homeMove(table.game, pile, count);
  if (home) return sendMove(home);
  return clearSelection();
}

export function drawStock() {
  clearSelection();
  return act({ type: "draw" });
}

function target(pile, index) {
  const sel = view.selection;
  if (pile === sel.pile) {
    const count = S.countFrom(table.game, pile, index);
    if (count && count !== sel.count) return sourceClick(pile, count);
    return clearSelection();
  }
  // a legal target plays; any other pile is a refused drop: the server says
  // why, nothing changes, and the selection is dropped
  return sendMove({ from: sel.pile, to: pile, count: sel.count });
}

// A second tap on the same pile this soon after the first is a double tap.
const DOUBLE_TAP_MS = 450;
let lastTap = null;

// Any other input in between: the next tap starts afresh.
export function forgetTap() {
  lastTap = null;
}

export function tap(pile, index) {
  if (!table.game) return;
  const at = performance.now();
  const before = lastTap;
  const double = before && before.pile === pile && before.index === index && at - before.at < DOUBLE_TAP_MS;
  const entry = { pile, index, at, sent: false };
  lastTap = entry;
  // a click on the stock needs no move list: it is painted and queued at once
  if (pile === "stock") {
    view.keyboard = false;
    view.focus = pile;
    closeOverlay();
    return drawStock();
  }
  whenSettled(() => tapNow(entry, double ? before : null));
}

function tapNow(entry, first) {
  const { pile, index } = entry;
  view.keyboard = false;
  view.focus = pile;
  closeOverlay();
  if (first && (first.sent || view.selection?.pile === pile)) {
    // a finished double tap does not start the next one
    if (lastTap === entry) lastTap = null;
    // the double tap's first half already sent the card: the second half
    // would only catch the card left under it
    if (first.sent) return schedule();
    // a double tap sends the card home when it can go there
    return homeOrDrop(pile, view.selection.count);
  }
  if (view.selection) return target(pile, index);
  const count = S.countFrom(table.game, pile, index);
  if (count) entry.sent = sourceClick(pile, count);
  else schedule();
}

// Enter on the focused pile: select, drop, or draw.
export function activate() {
  if (view.focus === "stock") return drawStock();
  whenSettled(activateNow);
}

function activateNow() {
  const pile = view.focus;
  if (view.overlay && view.overlay.pile === pile) return overlayAct("confirm");
  closeOverlay();
  if (pile === "stock") return drawStock();
  if (view.selection) {
    // Enter again on the picked card: home if it can go, else put it down
    if (pile === view.selection.pile) return homeOrDrop(pile, view.selection.count);
    return sendMove({ from: view.selection.pile, to: pile, count: view.selection.count });
  }
  if (S.countFrom(table.game, pile, S.topIndex(table.game, pile))) return sourceClick(pile, 1);
}

export function escape() {
  lastTap = null;
  if (view.overlay) return closeOverlay();
  if (panelShown() && table.game?.flags.won) {
    view.viewBoard = true;
    return schedule();
  }
  if (view.hint) view.hint = null;
  clearSelection();
}

// -- the run overlay --------------------------------------------------------

export function openOverlay(pile, count) {
  const p = S.tableauPile(table.game, pile);
  if (!p || !p.up.length) return false;
  count = Math.max(1, Math.min(count, p.up.length));
  view.overlay = { pile, count, max: p.up.length };
  view.selection = null;
  view.dests = [];
  overlay.show(overlayRun(), faceUpBox(board, pile, p.down));
  schedule();
  return true;
}

function overlayRun() {
  const { pile, count, max } = view.overlay;
  const up = S.tableauPile(table.game, pile).up;
  return { card: up[up.length - count], count, max, limit: S.handLimit(table.game) };
}

export function closeOverlay() {
  if (!view.overlay) return;
  view.overlay = null;
  overlay.hide();
  schedule();
}

export function overlayAct(name) {
  const run = view.overlay;
  if (!run) return;
  if (name === "close") return closeOverlay();
  if (name === "confirm") {
    closeOverlay();
    return select(run.pile, run.count);
  }
  run.count = Math.max(1, Math.min(run.max, run.count + (name === "up" ? 1 : -1)));
  overlay.show(overlayRun());
  schedule();
}

// -- buttons ----------------------------------------------------------------

export async function command(name) {
  const game = table.game;
  if (name === "fresh") return newGame({});
  if (!game) return;
  switch (name) {
    case "undo":
      return act({ type: "undo" });
    case "hint":
      return hint();
    case "new":
    case "again":
      return replaceGame({});
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
