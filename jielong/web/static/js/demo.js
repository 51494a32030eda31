// "Play it for me": the hint's line played move by move, each a normal move
// (drawn, counted and undone like any other). FreeCell's line is a solver's
// to a win; Klondike's is one too when every card is known, else the hint's
// own choices, and the bar says that no win is known. Pausable; any input of
// the player pauses it.
import { api } from "./api.js";
import { t, variant } from "./i18n.js";
import { toast } from "./paint.js";
import { motionAllowed } from "./render.js";

const STEP_MS = 420;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function offered(game, m) {
  return Boolean(game.moves?.some((x) => x.from === m.from && x.to === m.to && x.count === m.count));
}

/** @typedef {ReturnType<typeof createDemo>} Demo */

/**
 * The demo of one table, made once when the page starts; it plays through
 * the controller (controller.js) as the player would.
 * @param {import("./state.js").Table} table
 * @param {import("./controller.js").Controller} ctl
 * @param {import("./paint.js").Painter} paint
 */
export function createDemo(table, ctl, paint) {
  const { view } = table;
  const { act, request, settled } = ctl;
  const { schedule } = paint;
  // the moves still to play from the last hint, and the version they start at
  let line = [];
  let lineVersion = -1;
  let looping = false;

  function running() {
    return Boolean(view.demo && !view.demo.paused);
  }

  function start() {
    const game = table.confirmed;
    if (!game || game.flags.won || running()) return;
    view.demo = { paused: false, steps: view.demo?.steps || 0, note: view.demo?.note || null };
    view.hint = null;
    schedule();
    loop();
  }

  function pause() {
    if (!running()) return;
    view.demo.paused = true;
    schedule();
  }

  function stop() {
    view.demo = null;
    line = [];
    schedule();
  }

  function toggle() {
    if (running()) pause();
    else start();
  }

  // The next stretch of line from a hint, "retry" when asked to wait, or null
  // (said why) when there is nothing to play.
  async function fetchLine(game) {
    const res = await request(api.hint(game.id, game.version));
    if (!res || res.status === 409) return "retry";
    if (res.status === 429 || res.status === 503) {
      await sleep(1000 * Number(res.body?.error?.details?.retry_after || 1));
      return "retry";
    }
    if (res.status !== 200) {
      toast(res.body?.error?.message || t("hint.failed"));
      return null;
    }
    const h = res.body;
    if (!h.move) {
      toast(t(h.kind === "unsolvable" ? "hint.unsolvable" : h.kind === "no_progress" ? "hint.noProgress" : h.kind === "exhausted" ? "hint.exhausted" : "hint.none"));
      return null;
    }
    const known = h.kind === "solver" && (variant.family === "freecell" || h.win_chance === 1);
    if (view.demo) view.demo.note = known ? null : t("demo.noKnownWin");
    const first = h.steps?.length ? { ...h.move, steps: h.steps } : h.move;
    // a Klondike line starts with the hint's move; a FreeCell line follows it
    const rest = variant.family === "klondike" ? (h.line || []).slice(1) : h.line || [];
    return [first, ...rest];
  }

  async function loop() {
    if (looping) return;
    looping = true;
    try {
      while (running()) {
        const game = table.confirmed;
        if (!game || game.flags.won) break;
        if (!settled()) {
          await sleep(50);
          continue;
        }
        if (!line.length || lineVersion !== game.version || !(line[0].steps || offered(game, line[0]))) {
          const found = await fetchLine(game);
          if (!running()) break;
          if (found === "retry") continue;
          if (!found) {
            stop();
            break;
          }
          line = found;
          lineVersion = game.version;
        }
        const m = line.shift();
        const stock = m.from === "stock" || m.to === "stock";
        // marked as the demo's: the server records a game it played in as a demo, not a win
        const ok = await act(stock ? { type: "draw", demo: true } : { type: "move", ...m, demo: true });
        if (!ok) {
          stop();
          break;
        }
        lineVersion = table.confirmed.version;
        if (view.demo) view.demo.steps += 1;
        schedule();
        await sleep(motionAllowed() ? STEP_MS : 120);
      }
    } finally {
      looping = false;
    }
    if (view.demo && table.confirmed?.flags.won) stop();
  }

  return { running, start, pause, stop, toggle };
}
