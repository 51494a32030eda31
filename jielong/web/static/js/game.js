// The game on the table and its answers: loads the game, sends the actions
// one at a time and adopts the answers, the server's, or the engine's on this
// device while the server cannot be reached (engine/device.js). Hints and
// finishing are hints.js's, what the player's taps and keys ask for is
// controller.js's. No rules here: what may be played comes from the answer's
// `moves`.
import { api } from "./api.js";
import { onceReady, start as startEngine, whenReady } from "./engine/client.js";
import * as device from "./engine/device.js";
import { ask } from "./confirm.js";
import { t, variant } from "./i18n.js";
import { snapBack } from "./input.js";
import { lastState, onDevice, reached, remember, unreachable } from "./offline.js";
import { $, board, toast } from "./paint.js";
import { dealValue } from "./dealbox.js";
import * as S from "./state.js";
import { celebrate, skipCelebration } from "./winfx.js";
import { attachWinnableSwitch, newDealBody } from "./winnable.js";
import { attachOddsSwitch, cancelOdds, refreshOdds } from "./odds.js";

/**
 * A game as the server's game routes and the device's worker answer it
 * (jielong/play/view.py and jielong/play/worker.py).
 * @typedef {object} GameState
 * @property {string} id  private: "device-..." until the server has it
 * @property {number} version  sent back with each action and hint
 * @property {string} variant
 * @property {number | null} deal
 * @property {string | null} deal_id
 * @property {string | null} daily  YYYY-MM-DD
 * @property {{tableau: {down: number, up: string[]}[], foundations: (string | null)[],
 *   stock?: number, waste?: string[], cells?: (string | null)[]}} position
 * @property {Move[]} moves  every legal move: the only source of what may be played
 * @property {{to_card: number, to_empty: number} | null} limits
 * @property {{moves: number, recycles: number, foundation_cards: number, elapsed_ms: number,
 *   clock_running: boolean}} counters
 * @property {{won: boolean, no_legal_move: boolean, autocomplete: boolean, autocollect: boolean,
 *   can_undo: boolean}} flags
 * @property {object | null} last  what the last action did
 * @property {boolean} unsolvable
 * @property {boolean} winnable
 *
 * @typedef {{from: string, to: string, count: number}} Move
 *
 * A hint (jielong/play/answers.py), with where it was computed.
 * @typedef {object} HintAnswer
 * @property {number} version
 * @property {"solver" | "likely" | "heuristic" | "unsolvable" | "no_progress" | "exhausted" | "none"} kind
 * @property {Move | null} move
 * @property {Move[]} line
 * @property {Move[]} steps
 * @property {number | null} win_chance
 * @property {"server" | "device"} computed
 */

// -- the game and the server ------------------------------------------------

function storageKey(state) {
  return `jielong.game.${variant.id}${state.daily ? ".daily" : ""}`;
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

async function request(promise) {
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

function showError(res) {
  toast(res?.body?.error?.message || t("error.network"));
}

/**
 * The game on the table, made once when the page starts: it keeps
 * `table.confirmed` and `table.game` and changes the view as answers come;
 * the controller (controller.js) hands what it returns to the rest.
 * @param {import("./state.js").Table} table
 * @param {import("./paint.js").Painter} paint
 */
export function createGame(table, paint) {
  const { view } = table;
  const { schedule, showProblem } = paint;
  const winnableOnly = attachWinnableSwitch($("winnable-only"));
  attachOddsSwitch($("show-odds"), () => {
    refreshOdds(table.game, schedule);
    schedule();
  });

  // What the player's side does when a new answer changes the game (the run
  // overlay closes, say): set by controller.js.
  const changeHooks = [];
  function onGameChange(fn) {
    changeHooks.push(fn);
  }

  // The server's last answer is `table.confirmed`; what is drawn, `table.game`,
  // is that answer with the actions still on their way painted over it.
  const queue = [];
  let sending = false;
  // while a waiting input runs, the actions it asks for go before later ones
  let insertAt = -1;

  function settled() {
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

  function adopt(state, animate = true) {
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
      for (const fn of changeHooks) fn();
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
  const mirror = device.inTurn;

  // Games whose actions are played on the device until the server has them.
  const here = new Set();

  // The game on the table before the engine answered (it starts once the
  // page has settled): the engine takes it as soon as it does, while the
  // server can still send its record, so that a network lost before the
  // next move does not stop play.
  onceReady(() => {
    const state = table.confirmed;
    if (state && !here.has(state.id)) mirror(() => device.hold(state));
  });

  async function playHere(game, data) {
    await device.caughtUp();
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
  async function syncDevice() {
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
  function whenSettled(input) {
    if (settled()) return input();
    enqueue({ input });
    return undefined;
  }

  // What goes before every action (a hint being computed is dropped): set by hints.js.
  const actHooks = [];
  function onAct(fn) {
    actHooks.push(fn);
  }

  function act(data) {
    if (!table.confirmed) return Promise.resolve(false);
    for (const fn of actHooks) fn();
    cancelOdds();
    return new Promise((resolve) => {
      enqueue({ data, resolve });
      // paint first: the position the action leads to is drawn in this frame
      if (insertAt < 0) reproject(true);
      pump();
    });
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
  async function replaceGame(body) {
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

  async function load() {
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

  async function clockRunning(running) {
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

  return {
    onGameChange,
    onAct,
    settled,
    adopt,
    request,
    syncDevice,
    whenSettled,
    act,
    sendMove,
    newGame,
    replaceGame,
    load,
    clockRunning,
  };
}
