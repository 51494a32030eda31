// Where the player's input comes in: pointer gestures on the board, keys,
// buttons, the deal box, the tab's visibility and the board's size. Each is
// handed to the controller; nothing here changes the game by itself.
import { attachDealBox } from "./dealbox.js";
import { variant } from "./i18n.js";
import { attachPointer, snapBack } from "./input.js";
import { attachKeys } from "./keys.js";
import { board, hosts, toast } from "./paint.js";
import { markDests } from "./render.js";
import * as S from "./state.js";

function pointer(table, C, schedule) {
  const { view } = table;

  function dropNow(from, count, to, dragged) {
    if (!to || to === from) {
      snapBack(dragged);
      view.dests = view.selection ? view.dests : [];
      return schedule();
    }
    // any other pile, the stock included, is asked for: a refused drop comes
    // back with the server's reason
    const legal = S.destinations(table.game, from, count).includes(to);
    if (!legal) snapBack(dragged);
    C.sendMove({ from, to, count }, legal ? dragged : null);
  }

  attachPointer(board, {
    pickable(pile, index) {
      const game = table.game;
      if (!game || pile === "stock") return null;
      let count = S.countFrom(game, pile, index);
      const sel = view.selection;
      if (sel && sel.pile === pile && count && count < sel.count) count = sel.count;
      if (!count) return null;
      return { count, startIndex: S.runStart(game, pile, count) };
    },
    dragStart(pile, count) {
      C.cancelHint();
      C.closeOverlay();
      view.dests = S.destinations(table.game, pile, count);
      markDests(board, view.dests, null);
    },
    dragOver(over) {
      markDests(board, view.dests, view.dests.includes(over) ? over : null);
    },
    dragEnd() {
      view.dests = view.selection ? S.destinations(table.game, view.selection.pile, view.selection.count) : [];
      schedule();
    },
    drop(from, count, to, dragged) {
      C.whenSettled(() => dropNow(from, count, to, dragged));
    },
    tap: C.tap,
    longPress(pile, index) {
      if (!table.game || !pile.startsWith("tableau:")) return false;
      C.cancelHint();
      return C.openOverlay(pile, S.countFrom(table.game, pile, index) || 1);
    },
    overlaySlide: (x, y) => C.runOverlay.slide(x, y),
    overlayRelease: (x, y) => C.overlayAct(C.runOverlay.release(x, y)),
  });
}

function keys(table, C, D, schedule) {
  const { view } = table;
  attachKeys(board, {
    focusStep(step) {
      if (!table.game) return;
      C.closeOverlay();
      view.keyboard = true;
      view.focus = S.nextFocus(S.pileOrder(table.game), view.focus, step);
      schedule();
    },
    runStep(step) {
      if (!table.game || !view.focus?.startsWith("tableau:")) return;
      view.keyboard = true;
      if (view.overlay && view.overlay.pile === view.focus) return C.overlayAct(step > 0 ? "up" : "down");
      if (step > 0) C.openOverlay(view.focus, 2);
    },
    activate() {
      if (!table.game) return;
      view.keyboard = true;
      C.activate();
    },
    draw: () => table.game && variant.family === "klondike" && C.drawStock(),
    escape: C.escape,
    undo: () => C.act({ type: "undo" }),
    hint: C.hint,
    newGame: () => C.replaceGame({}),
    finish: C.finish,
    demo: D.toggle,
    focusIn(pile) {
      view.focus = pile;
      view.keyboard = true;
    },
  });
}

// The action bar's menu (phones): its toggle, and closed again by a choice
// made in it, a press outside it, or Esc.
function menu(table, schedule) {
  const { view } = table;
  const more = document.getElementById("more");
  const close = () => {
    if (!view.menu) return;
    view.menu = false;
    schedule();
  };
  document.addEventListener("click", (e) => {
    if (e.target.closest?.("[data-menu]")) {
      view.menu = !view.menu;
      schedule();
      if (view.menu) requestAnimationFrame(() => more.querySelector("button, a, input")?.focus({ preventScroll: true }));
      return;
    }
    if (!more.contains(e.target) || e.target.closest("button[data-act], a")) close();
  });
  document.addEventListener(
    "keydown",
    (e) => {
      if (e.key !== "Escape" || !view.menu) return;
      e.stopPropagation();
      close();
      hosts.actions.querySelector("[data-menu]")?.focus();
    },
    { capture: true },
  );
}

/**
 * @param {import("./state.js").Table} table
 * @param {import("./controller.js").Controller} C
 * @param {import("./demo.js").Demo} D
 * @param {import("./paint.js").Painter} paint
 */
export function attachEvents(table, C, D, paint) {
  const { schedule, boardResized, thirdSettled, tick } = paint;
  // the player's own input pauses the demo: the table is theirs again
  board.addEventListener("pointerdown", () => D.pause(), { capture: true });
  document.addEventListener(
    "keydown",
    (e) => {
      C.forgetTap();
      if (e.key !== "d" && e.key !== "D") D.pause();
    },
    { capture: true },
  );
  document.addEventListener(
    "click",
    (e) => {
      const act = e.target.closest?.("button[data-act]")?.dataset.act;
      if (act) C.forgetTap();
      if (act && !act.startsWith("demo")) D.pause();
    },
    { capture: true },
  );
  pointer(table, C, schedule);
  keys(table, C, D, schedule);
  document.addEventListener("click", (e) => {
    const button = e.target.closest("button[data-act]");
    if (!button || button.closest(".run-overlay") || !document.querySelector("main.play")?.contains(button)) return;
    // the third button changes meaning (new deal, auto-complete): a press
    // just after it changed was aimed at what it said before
    if (button.classList.contains("third") && !thirdSettled(e.timeStamp)) return;
    if (button.dataset.act === "demo") return D.toggle();
    if (button.dataset.act === "demo-stop") return D.stop();
    C.command(button.dataset.act);
  });
  attachDealBox(hosts.more, { toast, request: C.request, open: (deal) => C.replaceGame({ deal }) });
  menu(table, schedule);
  // Back and Forward between games replaced in this tab
  window.addEventListener("popstate", () => C.load());
  document.addEventListener("visibilitychange", () => C.clockRunning(!document.hidden));
  window.addEventListener("resize", () => C.closeOverlay());
  // rotation, resizing, fullscreen and bars that wrap all change the board's box
  new ResizeObserver(() => {
    if (boardResized()) schedule();
  }).observe(board);
  setInterval(tick, 500);
}
