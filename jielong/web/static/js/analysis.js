// The solvers' verdict on the table's position and a step-through of their
// line: next, previous, play to here. Each step is a real move or undo sent
// to the server, so only a game started from a position is stepped through
// (it never counts in the statistics); a dealt game is first copied into one.
import { api } from "./api.js";
import { call } from "./http.js";
import { pileName, t, variant } from "./i18n.js";
import { motionAllowed } from "./render.js";
import { lineCards } from "./state.js";
import { moveLabel } from "./panels.js";

// the pace of "play to here" over several moves, as the demo plays a line
const STEP_MS = 420;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

function solverName(id) {
  return t(id?.startsWith("fcsolve") ? "analysis.solver.fcsolve" : "analysis.solver.own");
}

// A bar on the table while the line is stepped through there: previous,
// where and the move to come (by its card), next, back to the dialog. It
// sits at the foot of the board, never over the action bar.
function stepBar(onOpen, onClose) {
  const prev = el("button", { type: "button", id: "step-bar-prev", text: t("analysis.prev") });
  const next = el("button", { type: "button", id: "step-bar-next", text: t("analysis.next") });
  const where = el("span", { id: "step-bar-step", class: "where" });
  const what = el("span", { id: "step-bar-move", class: "what" });
  const open = el("button", { type: "button", id: "step-bar-open", text: t("analysis.line") });
  const close = el("button", { type: "button", id: "step-bar-close", class: "close", text: "×", "aria-label": t("analysis.close") });
  const text = el("span", { class: "text", "aria-live": "polite" }, where, what);
  const bar = el("div", { id: "step-bar", class: "step-bar", role: "toolbar", "aria-label": t("analysis.heading") }, prev, text, next, open, close);
  open.addEventListener("click", onOpen);
  close.addEventListener("click", onClose);
  bar.hidden = true;
  (document.querySelector("main.play") || document.body).append(bar);
  return { bar, prev, next, where, what };
}

/**
 * @param {import("./state.js").Table} table
 * @param {import("./controller.js").Controller} ctl
 * @param {import("./demo.js").Demo} demo
 * @param {() => boolean} dialogShown  the position dialog is open
 * @param {() => void} openDialog
 * @param {() => void} [closeDialog]
 */
export function attachAnalysis(table, ctl, demo, dialogShown, openDialog, closeDialog = () => {}) {
  const { act, adopt, request } = ctl;
  // the server's last answer (the table may paint a move ahead of it)
  const current = () => table.confirmed || table.game;
  const run = el("button", { type: "button", id: "analysis-run", text: t("analysis.analyse") });
  const verdict = el("p", { id: "analysis-verdict", class: "verdict", "aria-live": "polite" });
  const note = el("p", { id: "analysis-thoughtful", class: "board-help" });
  const solvers = el("ul", { id: "analysis-solvers", class: "solvers" });
  const prev = el("button", { type: "button", id: "analysis-prev", text: t("analysis.prev") });
  const next = el("button", { type: "button", id: "analysis-next", text: t("analysis.next") });
  const where = el("span", { id: "analysis-step", "aria-live": "polite" });
  const asPosition = el("button", { type: "button", id: "analysis-as-position", text: t("analysis.asPosition") });
  const dealNote = el("p", { class: "board-help", text: t("analysis.dealNote") });
  const dealBox = el("div", { class: "deal-note" }, dealNote, asPosition);
  const list = el("ol", { id: "analysis-line", class: "line" });
  const lineOf = el("p", { id: "analysis-line-of", class: "board-help" });
  const stepper = el("div", { class: "stepper" }, lineOf, el("div", { class: "board-row" }, prev, where, next), list);
  const section = el(
    "section",
    { class: "board-analysis", "aria-labelledby": "analysis-title" },
    el("h3", { id: "analysis-title", text: t("analysis.heading") }),
    el("div", { class: "board-row" }, run),
    verdict,
    note,
    solvers,
    dealBox,
    stepper,
  );
  // the line and where the game stands on it: `at` moves played, the game
  // then at `version` (an undo is a version of its own too)
  let line = null;
  let busy = false;
  const outside = stepBar(openDialog, () => {
    line = null;
    paint();
  });

  function onLine() {
    const game = current();
    return line && game && game.id === line.id && game.version === line.version;
  }

  function paint() {
    const stepping = Boolean(line && line.moves.length) && current()?.deal === null;
    dealBox.hidden = !(line && line.moves.length && current()?.deal !== null);
    stepper.hidden = !stepping;
    outside.bar.hidden = !stepping || dialogShown();
    if (!stepping) return;
    const ok = onLine();
    where.textContent = ok ? t("analysis.step", { i: line.at, n: line.moves.length }) : t("analysis.offLine");
    outside.where.textContent = where.textContent;
    const coming = ok && line.at < line.moves.length ? line.labels[line.at] : "";
    outside.what.textContent = coming ? t("analysis.coming", { move: coming }) : "";
    prev.disabled = outside.prev.disabled = busy || !ok || line.at === 0;
    next.disabled = outside.next.disabled = busy || !ok || line.at >= line.moves.length;
    list.querySelectorAll("button").forEach((b, i) => {
      b.disabled = busy || !ok;
      b.setAttribute("aria-current", i + 1 === line.at ? "step" : "false");
    });
  }

  function show(answer) {
    const game = current();
    const cards = lineCards(game.position, answer.moves);
    const labels = answer.moves.map((m, i) => moveLabel(m, cards[i]));
    line = { id: game.id, version: answer.version, at: 0, moves: answer.moves, labels };
    const text = {
      solved: answer.length ? t("analysis.solved", { n: answer.length }) : t("analysis.won"),
      unsolvable: t("analysis.unsolvable"),
      unknown: t("analysis.unknown", { s: answer.seconds }),
    };
    verdict.textContent = text[answer.status];
    verdict.dataset.status = answer.status;
    note.textContent = answer.thoughtful ? t("analysis.thoughtful") : "";
    // each solver's verdict, the one whose line is shown marked as such
    solvers.replaceChildren(
      ...answer.solvers.map((s) =>
        el("li", {
          "data-solver": s.solver,
          ...(s.solver === answer.solver ? { "aria-current": "true" } : {}),
          text:
            t("analysis.solverLine", {
              solver: solverName(s.solver),
              status: t(`analysis.status.${s.status}`, { n: s.length }),
              seconds: s.seconds,
            }) + (s.solver === answer.solver && answer.moves.length ? ` · ${t("analysis.itsLine")}` : ""),
        }),
      ),
    );
    lineOf.textContent = answer.moves.length ? t("analysis.lineOf", { solver: solverName(answer.solver), n: answer.moves.length }) : "";
    list.replaceChildren(
      ...answer.moves.map((m, i) => {
        const b = el("button", { type: "button", title: t("analysis.playTo"), text: labels[i] });
        b.addEventListener("click", () => playTo(i + 1));
        return el("li", {}, b);
      }),
    );
    paint();
  }

  async function analyse() {
    const game = current();
    if (!game || busy) return;
    busy = true;
    run.setAttribute("aria-busy", "true");
    verdict.textContent = "";
    delete verdict.dataset.status;
    const res = await request(api.analysis(game.id, game.version));
    busy = false;
    run.removeAttribute("aria-busy");
    if (!res) return paint();
    if (res.status === 200) {
      show(res.body);
      return verdict.scrollIntoView({ block: "nearest" });
    }
    verdict.textContent = res.status === 503 ? t("analysis.busy") : res.body?.error?.message || t("error.network");
    return paint();
  }

  // one step along the line (+1) or back (-1), as a move or an undo
  async function step(dir) {
    if (!onLine()) return false;
    const m = line.moves[line.at];
    const stock = dir > 0 && (m.from === "stock" || m.to === "stock");
    const ok = await act(dir < 0 ? { type: "undo" } : stock ? { type: "draw" } : { type: "move", ...m });
    if (ok) {
      line.at += dir;
      line.version = current().version;
    }
    return ok;
  }

  async function playTo(target) {
    if (busy) return;
    // stepped on the table itself: the dialog makes way for the step bar
    if (dialogShown()) closeDialog();
    // the table's demo and this line would fight over the game: it pauses
    demo.pause();
    busy = true;
    paint();
    while (line.at !== target && (await step(target > line.at ? 1 : -1))) {
      paint();
      if (line.at !== target) await sleep(motionAllowed() ? STEP_MS : 0);
    }
    busy = false;
    paint();
  }

  async function openAsPosition() {
    const game = current();
    const res = await request(call("GET", `/api/games/${encodeURIComponent(game.id)}/position`));
    if (res?.status !== 200) return;
    const created = await request(call("POST", "/api/games", { variant: variant.id, position: res.body.code }));
    if (created?.status === 201) {
      adopt(created.body);
      return analyse();
    }
  }

  run.addEventListener("click", analyse);
  for (const b of [prev, outside.prev]) b.addEventListener("click", () => playTo(line.at - 1));
  for (const b of [next, outside.next]) b.addEventListener("click", () => playTo(line.at + 1));
  // whatever changes the game (a move of the player's own, an undo) repaints
  const board = document.getElementById("board");
  if (board) new MutationObserver(paint).observe(board, { attributes: true, attributeFilter: ["data-version", "data-game"] });
  asPosition.addEventListener("click", openAsPosition);
  paint();
  return { section, run: analyse, refresh: paint };
}
