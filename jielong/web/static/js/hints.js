// Hints and finishing: a hint asked of the engine on this device or of the
// server (api.js decides), shown on the table, pressed again for the next
// move it weighed; auto-complete and 自動收牌. The actions go through the
// game (game.js). No rules here.
import { api } from "./api.js";
import { t, variant } from "./i18n.js";
import { board, toast } from "./paint.js";
import { ghost, motionAllowed } from "./render.js";
import * as S from "./state.js";
import { oddsFor } from "./odds.js";

/**
 * The hints and finishing of the table, made once with its game.
 * @param {import("./state.js").Table} table
 * @param {import("./paint.js").Painter} paint
 * @param {ReturnType<typeof import("./game.js").createGame>} game
 */
export function createHints(table, paint, game) {
  const { view } = table;
  const { schedule } = paint;
  const { act, request, sendMove, settled, whenSettled } = game;
  let hintCtl = null;
  let pendingFor = null; // the version the hint under way is for
  game.onAct(cancelHint);

  function cancelHint() {
    if (hintCtl) hintCtl.abort();
    hintCtl = null;
    pendingFor = null;
    if (view.hintPending) {
      view.hintPending = false;
      schedule();
    }
  }

  function hint() {
    whenSettled(hintNow);
  }

  async function hintNow() {
    const game = table.confirmed;
    if (!game || game.flags.won) return;
    // pressed again while the hint for this very position is on its way:
    // it goes on (starting it again would only make the player wait longer)
    if (hintCtl && pendingFor === game.version) return;
    const shown = view.hint;
    if (shown?.move && shown.version === game.version) {
      if (variant.hintPlaysOnSecondClick) {
        view.hint = null;
        // a run longer than the hand may move comes with the single-card steps that carry it
        return sendMove(shown.steps?.length ? { ...shown.move, steps: shown.steps } : shown.move);
      }
      // the same position again: another move weighed, or the line further on
      const next = S.nextHint(shown);
      if (next) {
        view.hint = next;
        if (next.move !== shown.move) ghost(board, next.move);
        return schedule();
      }
    }
    cancelHint();
    const ctl = new AbortController();
    hintCtl = ctl;
    const version = game.version;
    pendingFor = version;
    view.hint = null;
    view.hintPending = true;
    schedule();
    // the live readout may have this very hint already
    const ready = oddsFor(game);
    const res = ready ? { status: 200, body: ready } : await request(api.hint(game.id, version, ctl.signal));
    if (hintCtl === ctl) {
      hintCtl = null;
      pendingFor = null;
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

  // -- finishing ------------------------------------------------------------

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

  function finish() {
    const game = table.game;
    if (!game) return;
    if (variant.finishing === "autocollect") {
      if (game.flags.autocollect) act({ type: "autocollect" });
    } else if (view.auto || game.flags.autocomplete) autocomplete();
  }

  return { cancelHint, hint, autocomplete, finish };
}
