// Status bar, action bar, hint bar, panels and the toast: drawn from the
// game and view state; buttons carry data-act and the controller handles them.
import { formatTime, pileName, t, variant } from "./i18n.js";
import { shortCard } from "./overlay.js";
import { faceUp, lineCards, stockRun } from "./state.js";
import { oddsFor, oddsOn } from "./odds.js";

// A text in its touch-screen words ("tap" for "click") where the screen is
// touched and the catalogue has them.
const touch = window.matchMedia("(pointer: coarse)");
export function tt(key, values = {}) {
  const own = `${key}.touch`;
  return touch.matches && t(own) !== own ? t(own, values) : t(key, values);
}

function button(act, label, extra = "") {
  return `<button type="button" data-act="${act}" ${extra}>${label}</button>`;
}

// The clock is drawn apart from the status line, outside its live region, so
// that screen readers are not told the time every second.
export function clockText(elapsed) {
  return t("status.time", { t: formatTime(elapsed) });
}

export function statusHTML(game) {
  const c = game.counters;
  const items = [`<span class="moves">${t("status.moves", { n: c.moves })}</span>`];
  if (variant.family === "klondike") items.push(`<span class="recycles">${t("status.recycles", { n: c.recycles })}</span>`);
  if (game.limits) items.push(`<span class="limit">${t("status.limit", { n: game.limits.to_card })}</span>`);
  if (game.daily) items.push(`<span class="daily">${t("status.daily", { date: game.daily })}</span>`);
  items.push(
    game.deal_id
      ? `<span class="deal-id">${t("status.deal", { id: game.deal_id })}</span>`
      : `<span class="deal-id">${t("status.custom")}</span>`,
  );
  if (game.unsolvable) items.push(`<span class="unsolvable">${t("status.unsolvable")}</span>`);
  const odds = oddsOn() && !game.flags.won ? oddsFor(game) : null;
  if (odds && typeof odds.win_chance === "number") {
    const p = odds.samples > 0 ? estimatePercent(odds.win_chance) : Math.round(odds.win_chance * 100);
    items.push(`<span class="odds">${t(odds.samples > 0 ? "hint.chance" : "status.oddsExact", { p })}</span>`);
  }
  // every FreeCell catalogue deal is winnable: the mark only tells in Klondike
  if (game.winnable && variant.family === "klondike") {
    items.push(`<span class="winnable" title="${t("status.winnableTitle")}">${t("status.winnable")}</span>`);
  }
  return items.join("");
}

// The slim row: undo, hint, the third slot (new deal or auto-complete), the
// demo and the menu's toggle; each has an icon (drawn by the style sheet).
export function actionsHTML(game, view) {
  const f = game.flags;
  const out = [button("undo", t("action.undo"), f.can_undo ? "" : "disabled"), button("hint", t("action.hint"), view.hintPending ? 'aria-busy="true"' : "")];
  const busy = view.dealing ? ' aria-busy="true"' : "";
  let third;
  if (variant.finishing === "autocollect") {
    third = button("autocollect", t("action.autocollect"), f.autocollect && !f.won ? "" : "disabled");
  } else if (view.auto) {
    third = button("stop", t("action.stop"), 'class="third on"');
  } else if (f.autocomplete && !f.won) {
    third = button("autocomplete", t("action.autocomplete"), 'class="third"');
  } else {
    third = button("new", t("action.new"), `class="third"${busy}`);
  }
  out.push(third);
  out.push(button("demo", t("action.demo"), view.demo && !view.demo.paused ? 'aria-pressed="true"' : 'aria-pressed="false"'));
  out.push(
    `<button type="button" class="more-toggle" data-menu aria-controls="more" aria-expanded="${view.menu ? "true" : "false"}"` +
      ` title="${t("action.moreTitle")}">${t("action.more")}</button>`,
  );
  return out.join("");
}

// The menu: restart, a new deal when the third slot does something else, the
// rules and the deal number.
export function moreHTML(game, view) {
  const f = game.flags;
  const third = variant.finishing === "autocollect" || view.auto || (f.autocomplete && !f.won);
  const busy = view.dealing ? ' aria-busy="true"' : "";
  const out = [button("restart", t("action.restart"))];
  if (third) out.push(button("new", t("action.new"), busy));
  out.push(`<a class="rules-link" href="/rules/${variant.id}">${t("action.rules")}</a>`);
  if (variant.numberedDeals) {
    out.push(
      `<form class="dealbox" data-form="deal" novalidate><label>${t("deal.label")} ` +
        `<input name="deal" type="text" inputmode="numeric" autocomplete="off" size="9" value="${game.deal ?? ""}"></label>` +
        `<button type="submit">${t("deal.go")}</button><span class="deal-check" aria-live="polite"></span></form>`,
    );
  }
  return out.join("");
}

const EXIT_LABELS = { undo: "action.undo", hint: "action.hint", restart: "action.restart", new: "action.new", again: "win.again", view: "win.view", dismiss: "action.close" };

function exits(list, game = null) {
  const off = (a) => (a === "undo" && game && !game.flags.can_undo ? "disabled" : "");
  return `<div class="exits">${list.map((a) => button(a, t(EXIT_LABELS[a]), off(a))).join("")}</div>`;
}

// An estimated chance, in the precision it has: to the nearest 5 points, and
// never 0 or 100, which only an exact answer says.
export function estimatePercent(chance) {
  return Math.min(95, Math.max(5, Math.round(chance * 20) * 5));
}

// How sure the hint is, and the chance to win from here: exact only with a
// solver's line through known cards, else estimated from deals of the unseen cards.
function oddsHTML(h) {
  // another move a sampled hint weighed: how it did on the deals
  if (h.alt) return ` <span class="odds">${t("hint.otherWon", { won: h.won, of: h.of })}</span>`;
  const parts = [];
  // the stock turned through before anything else: a reason of its own
  if (h.source === "first_pass") parts.push(t("hint.kind.firstPass"));
  // a game that went long without turning a card over: the way on
  else if (h.source === "onwards") parts.push(t("hint.kind.onwards"));
  else if (["solver", "likely", "heuristic"].includes(h.kind)) parts.push(t(`hint.kind.${h.kind}`));
  if (typeof h.win_chance === "number" && h.samples > 0) {
    parts.push(t("hint.chance", { p: estimatePercent(h.win_chance), n: h.samples }));
    const how = t("hint.chanceTitle", { n: h.samples, d: h.decided ?? h.samples });
    return ` <span class="odds" title="${how}">${parts.join(" · ")}</span>`;
  }
  return parts.length ? ` <span class="odds">${parts.join(" · ")}</span>` : "";
}

// The moves of the hint's line after its first, as many as pressing the hint
// again has asked for, each named by its card where the page knows it.
function aheadHTML(game, h) {
  if (!h.ahead) return "";
  const moves = h.line.slice(0, h.ahead + 1);
  const cards = lineCards(game.position, moves);
  const names = moves.slice(1).map((m, i) => moveLabel(m, cards[i + 1]));
  return ` <span class="then">${t("hint.then", { moves: names.join(t("hint.thenJoin")) })}</span>`;
}

// A move of a line by the card it carries where the page knows it
// ("♠7: Column 3 → Column 6"), else by its piles; turns of the stock as such.
export function moveLabel(m, card) {
  if (m.from === "stock") return t("analysis.turnStock");
  if (m.to === "stock") return t("analysis.turnWaste");
  const names = { from: pileName(m.from), to: pileName(m.to), n: m.count };
  const run = m.count > 1 && m.from.startsWith("tableau") && m.to.startsWith("tableau");
  const piles = t(run ? "analysis.moveRun" : "analysis.move", names);
  return card ? t("analysis.moveCard", { card: shortCard(card), move: piles }) : piles;
}

// Another move a sampled hint weighed, shown on a second press of the hint.
function otherHTML(game, h) {
  const card = lineCards(game.position, [h.move])[0];
  const text = t("hint.other", { move: moveLabel(h.move, card), k: h.alt + 1, n: h.best.others.length + 1 });
  return `<div class="bar info"><span>${text}</span>${oddsHTML(h)}</div>`;
}

export function hintbarHTML(game, view) {
  const h = view.hint;
  if (view.demo) {
    const d = view.demo;
    const state = t(d.paused ? "demo.paused" : "demo.playing", { n: d.steps });
    const note = d.note ? ` <span class="note">${d.note}</span>` : "";
    return (
      `<div class="bar info demo"><span>${state}${note}</span><div class="exits">` +
      `${button("demo", t(d.paused ? "demo.resume" : "demo.pause"))}${button("demo-stop", t("demo.stop"))}</div></div>`
    );
  }
  if (view.hintPending) return `<div class="bar thinking"><span class="spinner" aria-hidden="true"></span>${t("hint.thinking")}</div>`;
  if (!h) return "";
  const list = ["undo", "hint", "restart", "new", "dismiss"];
  if (h.kind === "no_progress") return `<div class="bar warn"><span>${t("hint.noProgress")}</span>${exits(list, game)}</div>`;
  if (h.kind === "unsolvable") return `<div class="bar warn"><span>${t("hint.unsolvable")}</span>${exits(list, game)}</div>`;
  if (h.kind === "exhausted") return `<div class="bar warn"><span>${t("hint.exhausted")}</span>${exits(list, game)}</div>`;
  if (h.alt) return otherHTML(game, h);
  const draws = stockRun(h);
  if (h.move && draws > 1) {
    // a run of clicks on the stock is one hint: where it leads, and how many
    const then = h.line[draws];
    // a run that starts by turning the waste over says so, then counts the turns of the stock
    const over = h.line[0].to === "stock";
    const n = over ? draws - 1 : draws;
    const text = then
      ? t(over ? "hint.overDraws" : "hint.draws", { n, from: pileName(then.from), to: pileName(then.to) })
      : t(over ? "hint.overDrawsOnly" : "hint.drawsOnly", { n });
    return `<div class="bar info"><span>${text}</span>${oddsHTML(h)}</div>`;
  }
  // a turn of the stock, or of the waste back over, said as what the hand does
  if (h.move?.from === "stock") return `<div class="bar info"><span>${t("hint.turnStock")}</span>${oddsHTML(h)}</div>`;
  if (h.move?.to === "stock") return `<div class="bar info"><span>${t("hint.turnWaste")}</span>${oddsHTML(h)}</div>`;
  if (h.move) {
    const up = faceUp(game, h.move.from);
    const n = h.move.count;
    const first = up.length >= n ? shortCard(up[up.length - n]) : "";
    // a run says how many cards it carries: it may be more than the hand moves
    const what = first && n > 1 ? t("overlay.run", { card: first, n }) : first;
    const names = { from: pileName(h.move.from) + (what ? ` ${what}` : ""), to: pileName(h.move.to) };
    const text = t("hint.move", names);
    const again = variant.hintPlaysOnSecondClick ? ` <span class="again">${t("hint.again")}</span>` : "";
    return `<div class="bar info"><span>${text}${again}${aheadHTML(game, h)}</span>${oddsHTML(h)}</div>`;
  }
  return "";
}

export function problemHTML(message) {
  return (
    `<div class="panel problem" role="alertdialog" aria-labelledby="problem-title" aria-describedby="problem-text">` +
    `<h2 id="problem-title">${t("deal.problem")}</h2><p id="problem-text">${escapeText(message)}</p>` +
    `<div class="exits">${button("fresh", t("action.new"))}<a class="button" href="/">${t("nav.home")}</a></div></div>`
  );
}

function escapeText(text) {
  return String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function panelHTML(game, view) {
  const c = game.counters;
  if (game.flags.won && !view.viewBoard) {
    const lines = [
      t("win.time", { t: formatTime(c.elapsed_ms) }),
      t("win.moves", { n: c.moves }),
      ...(variant.family === "klondike" ? [t("win.recycles", { n: c.recycles })] : []),
      t("win.home", { n: c.foundation_cards }),
    ];
    const id = game.deal_id
      ? `<button type="button" class="copy" data-act="copy" title="${tt("win.copy")}">${t("status.deal", { id: game.deal_id })}</button>`
      : "";
    return (
      `<div class="panel win" role="dialog" aria-modal="false" aria-labelledby="win-title"><h2 id="win-title">${t("win.title")}</h2>` +
      `<ul class="figures">${lines.map((l) => `<li>${l}</li>`).join("")}</ul>${id}` +
      `${exits(["again", "restart", "view"])}</div>`
    );
  }
  if (game.flags.no_legal_move && !game.flags.won && !view.viewBoard) {
    const list = variant.family === "klondike" ? ["undo", "restart", "again", "view"] : ["undo", "restart", "again"];
    return (
      `<div class="panel stuck" role="dialog" aria-labelledby="stuck-title"><h2 id="stuck-title">${t("stuck.title")}</h2>` +
      `<p>${t("stuck.body")}</p>${exits(list, game)}</div>`
    );
  }
  return "";
}
