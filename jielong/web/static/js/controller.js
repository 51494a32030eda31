// The player's intent: what a tap, a key or a button asks for (select, send,
// drop, the run overlay, the action bar's commands), turned into the actions
// game.js sends. No rules here: what may be played comes from the answer's
// `moves` (state.js reads them).
import { ask } from "./confirm.js";
import { cardName, t, variant } from "./i18n.js";
import { RunOverlay, faceUpBox } from "./overlay.js";
import { $, board, toast } from "./paint.js";
import * as S from "./state.js";
import { createGame } from "./game.js";
import { createHints } from "./hints.js";

// A second tap on the same pile this soon after the first is a double tap.
const DOUBLE_TAP_MS = 450;

/** @typedef {ReturnType<typeof createController>} Controller */

/**
 * The controller of the table, made once when the page starts, with the game
 * (game.js) it sends through: the rest of the table's script reaches both
 * through what it returns.
 * @param {import("./state.js").Table} table
 * @param {import("./paint.js").Painter} paint
 */
export function createController(table, paint) {
  const { view } = table;
  const { schedule, panelShown } = paint;
  const gameApi = { ...createGame(table, paint) };
  Object.assign(gameApi, createHints(table, paint, gameApi));
  const { act, autocomplete, hint, newGame, replaceGame, sendMove, whenSettled } = gameApi;
  const overlay = new RunOverlay(document.body, (name) => overlayAct(name));
  gameApi.onGameChange(() => closeOverlay());

  // -- selection ------------------------------------------------------------

  function clearSelection() {
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

  function drawStock() {
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

  let lastTap = null;

  // Any other input in between: the next tap starts afresh.
  function forgetTap() {
    lastTap = null;
  }

  function tap(pile, index) {
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
  function activate() {
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

  function escape() {
    lastTap = null;
    if (view.overlay) return closeOverlay();
    if (panelShown() && table.game?.flags.won) {
      view.viewBoard = true;
      return schedule();
    }
    if (view.hint) view.hint = null;
    clearSelection();
  }

  // -- the run overlay ------------------------------------------------------

  function openOverlay(pile, count) {
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

  function closeOverlay() {
    if (!view.overlay) return;
    view.overlay = null;
    overlay.hide();
    schedule();
  }

  function overlayAct(name) {
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

  // Restart over a game with moves asks first, as a new deal does (undo would
  // bring the moves back, but nothing says so).
  async function restart() {
    const g = table.confirmed;
    if (g && !g.flags.won && g.counters.moves > 0) {
      const yes = await ask({
        title: t("confirm.restartTitle"),
        body: t("confirm.restartBody", { n: g.counters.moves }),
        yes: t("confirm.restartYes"),
        no: t("confirm.keep"),
      });
      if (!yes) return false;
    }
    return act({ type: "restart" });
  }

  // -- buttons --------------------------------------------------------------

  async function command(name) {
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
        return restart();
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

  return {
    ...gameApi,
    runOverlay: overlay,
    drawStock,
    forgetTap,
    tap,
    activate,
    escape,
    openOverlay,
    closeOverlay,
    overlayAct,
    command,
  };
}
