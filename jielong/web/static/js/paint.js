// One redraw per frame: the bars, the panel and the board are drawn from the
// table's game and view state; anyone who changes them calls schedule().
import { computeLayout } from "./layout.js";
import * as P from "./panels.js";
import { draw } from "./render.js";
import { largeCards } from "./settings.js";
import { elapsed, pileOrder } from "./state.js";

export const $ = (id) => document.getElementById(id);
export const board = $("board");
export const hosts = { status: $("status-live"), hintbar: $("hintbar"), actions: $("actions"), more: $("more-actions"), panel: $("panel") };
const moreEl = $("more");
const toastEl = $("toast");
const clockEl = $("clock");

// When the third action button last changed what it does.
const THIRD_GUARD_MS = 700;

/** @typedef {ReturnType<typeof createPainter>} Painter */

/**
 * What draws the table, made once when the page starts: schedule() asks for
 * one redraw of it in the next frame.
 * @param {import("./state.js").Table} table
 */
export function createPainter(table) {
  let frame = 0;
  let animateNext = false;
  const lastHTML = {};
  // the board's size the last drawing was laid out for
  let drawn = { width: 0, height: 0 };
  let third = { act: null, since: -Infinity };

  function schedule(animate = false) {
    animateNext = animateNext || animate;
    if (!frame) frame = requestAnimationFrame(flush);
  }

  function put(name, html) {
    if (lastHTML[name] === html) return;
    lastHTML[name] = html;
    const host = hosts[name];
    const typed = typedIn(host);
    host.innerHTML = html;
    for (const t of typed) {
      const input = host.querySelector(`input[name="${t.name}"]`);
      // what the player is typing stays, unless the box now starts from
      // another value (another deal on the table)
      if (!input || input.defaultValue !== t.defaultValue) continue;
      input.value = t.value;
      if (t.focused) {
        input.focus({ preventScroll: true });
        input.setSelectionRange(t.start, t.end);
      }
    }
  }

  // The board's box changed since it was last laid out (rotation, resizing,
  // bars that wrap): a redraw is due. A change the last drawing already took
  // in, such as bars that grew in the same frame, needs none: a second rebuild
  // would replace every card under a finger that is about to touch one.
  function boardResized() {
    return board.clientWidth !== drawn.width || board.clientHeight !== drawn.height;
  }

  function panelShown() {
    return Boolean(lastHTML.panel);
  }

  function clock() {
    return elapsed(table.game, table.receivedAt, performance.now());
  }

  function flush() {
    frame = 0;
    const { game, view } = table;
    if (!game) return;
    view.animate = animateNext;
    animateNext = false;
    const order = pileOrder(game);
    if (!view.focus || !order.includes(view.focus)) view.focus = order.at(-1);
    // bars first: the board takes the height they leave
    put("status", P.statusHTML(game));
    tick();
    put("actions", P.actionsHTML(game, view));
    put("more", P.moreHTML(game, view));
    moreEl.classList.toggle("open", Boolean(view.menu));
    noteThird();
    put("hintbar", P.hintbarHTML(game, view));
    put("panel", P.panelHTML(game, view));
    drawn = { width: board.clientWidth, height: board.clientHeight };
    const layout = computeLayout(game, drawn.width, drawn.height, { large: largeCards() });
    draw(board, game, view, layout);
    // drawn ahead of the server's answer (tests wait for the answer's board)
    board.toggleAttribute("data-pending", game !== table.confirmed);
    // for bench/page_speed.py: when the first playable board was drawn
    if (!performance.getEntriesByName("jielong:board").length) performance.mark("jielong:board");
    document.body.classList.toggle("has-panel", panelShown());
  }

  function noteThird() {
    const act = hosts.actions.querySelector("button.third")?.dataset.act ?? null;
    if (act === third.act) return;
    third = { act, since: third.act === null ? -Infinity : performance.now() };
  }

  function thirdSettled(now) {
    return now - third.since >= THIRD_GUARD_MS;
  }

  function tick() {
    if (!table.game) return;
    const text = P.clockText(clock());
    if (clockEl.textContent !== text) clockEl.textContent = text;
  }

  // A deal that could not be opened, before any game is on the table.
  function showProblem(message) {
    put("panel", P.problemHTML(message));
    document.body.classList.add("has-panel");
    hosts.panel.querySelector("button")?.focus();
  }

  // a display choice changed (settings.js): redraw with it
  document.addEventListener("jielong:settings", () => schedule());

  return { schedule, tick, boardResized, panelShown, thirdSettled, showProblem };
}

// The text inputs of a host that a redraw would reset: edited or focused.
function typedIn(host) {
  const out = [];
  for (const input of host.querySelectorAll("input[name]")) {
    if (input.type !== "text") continue;
    const focused = document.activeElement === input;
    if (!focused && input.value === input.defaultValue) continue;
    const { name, value, defaultValue, selectionStart: start, selectionEnd: end } = input;
    out.push({ name, value, defaultValue, focused, start, end });
  }
  return out;
}

let toastTimer = 0;
export function toast(text) {
  toastEl.textContent = text;
  toastEl.classList.add("show");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => toastEl.classList.remove("show"), 2600);
}
