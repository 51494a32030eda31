// View state as plain data and functions: no DOM here. The server's `moves`
// list is the only source of what may be played (like chessground's dests).

export function pileOrder(game) {
  const p = game.position;
  const ids = [];
  if (p.stock !== undefined && p.stock !== null) ids.push("stock", "waste");
  if (p.cells) p.cells.forEach((_, i) => ids.push(`cell:${i}`));
  p.foundations.forEach((_, i) => ids.push(`foundation:${i}`));
  p.tableau.forEach((_, i) => ids.push(`tableau:${i}`));
  return ids;
}

// The face-up cards of a pile, bottom first, as the player can pick them.
export function faceUp(game, pile) {
  const p = game.position;
  const [kind, index] = pile.split(":");
  if (kind === "tableau") return p.tableau[Number(index)].up;
  if (kind === "waste") return p.waste.length ? [p.waste[p.waste.length - 1]] : [];
  if (kind === "cell") return p.cells[Number(index)] ? [p.cells[Number(index)]] : [];
  if (kind === "foundation") return p.foundations[Number(index)] ? [p.foundations[Number(index)]] : [];
  return [];
}

export function destinations(game, from, count) {
  // a drawn position that waits for its answer has no list yet: no destinations
  return (game.moves || []).filter((m) => m.from === from && m.count === count).map((m) => m.to);
}

// What one click on a source does: "send" a move at once when there is exactly
// one place to go, else "select". All empty free cells count as one place, and
// so do the foundations (only an ace has more than one, the empty ones); in
// FreeCell a card that can go home goes home, and in Klondike an ace does
// (home is never a worse place for it than on a 2).
export function clickPlan(game, from, count, family) {
  const dests = destinations(game, from, count);
  if (family === "freecell" || (count === 1 && isAce(game, from))) {
    const home = dests.find((d) => d.startsWith("foundation:"));
    if (home) return { kind: "send", move: { from, to: home, count } };
  }
  const groups = new Map();
  for (const d of dests) {
    const key = d.startsWith("cell:") ? "cell" : d.startsWith("foundation:") ? "foundation" : d;
    if (!groups.has(key)) groups.set(key, d);
  }
  if (groups.size === 1) {
    const [to] = groups.values();
    return { kind: "send", move: { from, to, count } };
  }
  return { kind: "select", selection: { pile: from, count }, dests };
}

function isAce(game, from) {
  return game.position ? faceUp(game, from).at(-1)?.[0] === "A" : false;
}

// Where a card goes home, when the list offers it a foundation.
export function homeMove(game, from, count) {
  const to = destinations(game, from, count).find((d) => d.startsWith("foundation:"));
  return to ? { from, to, count } : null;
}

// How many clicks on the stock a hint's line starts with (draws and recycles).
export function stockRun(hint) {
  const line = hint?.line || [];
  let n = 0;
  while (n < line.length && (line[n].from === "stock" || line[n].to === "stock")) n++;
  return n;
}

// A hint that starts with clicks on the stock goes on after the player makes
// the first of them: it then starts one click later. Any other change ends it.
export function followHint(hint, state) {
  const last = state.last;
  const clicked = last && (last.type === "draw" || last.type === "recycle");
  if (!clicked || state.version !== hint.version + 1 || stockRun(hint) < 1 || hint.line.length < 2) return null;
  const line = hint.line.slice(1);
  return { ...hint, move: line[0], line, version: state.version };
}

// Hint pressed again on the position it was given for: the next move a
// sampled hint weighed (then its best one again), or else one more move of
// the line shown after the first, up to AHEAD. Null when there is nothing more.
export const AHEAD = 3;
export function nextHint(hint) {
  const best = hint.best || hint;
  const others = best.others || [];
  if (others.length) {
    const k = ((hint.alt || 0) + 1) % (others.length + 1);
    if (k === 0) return best;
    const o = others[k - 1];
    return { ...best, move: o.move, line: [o.move], steps: [], alt: k, won: o.won, of: o.of, best };
  }
  const line = hint.line || [];
  const ahead = (hint.ahead || 0) + 1;
  if (stockRun(hint) > 1 || ahead >= line.length || ahead > AHEAD) return null;
  return { ...hint, ahead };
}

// The longest run a hand may move right now (FreeCell), for the overlay text.
export function handLimit(game) {
  return game.limits ? Math.max(game.limits.to_card, game.limits.to_empty) : null;
}

export function nextFocus(order, current, step) {
  const i = order.indexOf(current);
  if (i < 0) return order[0];
  return order[(i + step + order.length) % order.length];
}

export function emptyCells(game) {
  return (game.position.cells || []).map((c, i) => (c ? null : `cell:${i}`)).filter(Boolean);
}

/**
 * The view's own state: what is selected, hinted, focused, open or running.
 * @typedef {ReturnType<typeof createView>} View
 *
 * The table's one state object, made by createTable() when the page starts
 * and handed to each part of its script that reads or changes it.
 * @typedef {object} Table
 * @property {import("./game.js").GameState | null} confirmed  the server's last answer
 * @property {import("./game.js").GameState | null} game  what is drawn: the answer
 *   with the actions still on their way painted over it
 * @property {number} receivedAt  when the answer came (performance.now()), for the clock
 * @property {View} view
 */

export function createView() {
  return {
    selection: null,
    dests: [],
    hint: null,
    hintPending: false,
    focus: null,
    keyboard: false,
    overlay: null,
    auto: false,
    viewBoard: false,
    // the action bar's menu is open (phones)
    menu: false,
    animate: false,
    dealing: false,
    // the demo: {paused, steps, note} while it plays the line for the player
    demo: null,
  };
}

/** @returns {Table} */
export function createTable() {
  return { confirmed: null, game: null, receivedAt: 0, view: createView() };
}

export function tableauPile(game, pile) {
  const [kind, index] = pile.split(":");
  return kind === "tableau" ? game.position.tableau[Number(index)] : null;
}

// How many cards a press on card `index` of `pile` picks up (0: none).
export function countFrom(game, pile, index) {
  if (index === null || index === undefined) return 0;
  const kind = pile.split(":")[0];
  if (kind === "tableau") {
    const p = tableauPile(game, pile);
    return index >= p.down ? p.down + p.up.length - index : 0;
  }
  if (kind === "waste") return index === game.position.waste.length - 1 ? 1 : 0;
  return faceUp(game, pile).length ? 1 : 0;
}

// The index of a pile's top card as the board numbers it.
export function topIndex(game, pile) {
  const p = tableauPile(game, pile);
  if (p) return p.down + p.up.length - 1;
  return pile === "waste" ? game.position.waste.length - 1 : 0;
}

// The index of the first card of a run of `count` from the top of `pile`.
export function runStart(game, pile, count) {
  const p = tableauPile(game, pile);
  if (p) return p.down + p.up.length - count;
  return pile === "waste" ? game.position.waste.length - 1 : 0;
}

// The clock as shown: the server's figure plus the time since it was sent.
export function elapsed(game, receivedAt, now) {
  const c = game.counters;
  return c.elapsed_ms + (c.clock_running && !game.flags.won ? now - receivedAt : 0);
}

// -- painting before the answer ---------------------------------------------
// A move the server's list offers, or a click on the stock, is drawn at once
// as the position it leads to; the server's answer then replaces it. Cards the
// page cannot know yet (those a draw turns, one a move turns over) stay face
// down until the answer shows them. Nothing here decides what is legal: a
// move is projected only when it is in `moves`, and a projected position has
// no move list (inputs then wait for the answer).

export const UNKNOWN = "??";
const RANK_ORDER = "A23456789TJQK";

function offered(game, move) {
  return Boolean(game.moves?.some((m) => m.from === move.from && m.to === move.to && m.count === move.count));
}

function copyPosition(p) {
  return {
    ...p,
    tableau: p.tableau.map((t) => ({ down: t.down, up: [...t.up] })),
    foundations: [...p.foundations],
    ...(p.cells ? { cells: [...p.cells] } : {}),
    ...(p.waste ? { waste: [...p.waste] } : {}),
  };
}

function take(p, pile, count) {
  const [kind, index] = pile.split(":");
  const i = Number(index);
  if (kind === "tableau") return p.tableau[i].up.splice(p.tableau[i].up.length - count, count);
  if (kind === "waste") return p.waste.splice(p.waste.length - count, count);
  if (kind === "cell") {
    const card = p.cells[i];
    p.cells[i] = null;
    return [card];
  }
  // a foundation keeps its top card only: the one below is the rank before it
  const card = p.foundations[i];
  const below = RANK_ORDER.indexOf(card[0]) - 1;
  p.foundations[i] = below >= 0 ? RANK_ORDER[below] + card[1] : null;
  return [card];
}

function put(p, pile, cards) {
  const [kind, index] = pile.split(":");
  const i = Number(index);
  if (kind === "tableau") p.tableau[i].up.push(...cards);
  else if (kind === "foundation") p.foundations[i] = cards.at(-1);
  else if (kind === "cell") p.cells[i] = cards[0];
}

function projected(game, position, last) {
  return {
    ...game,
    position,
    moves: null,
    last,
    flags: { ...game.flags, can_undo: true, no_legal_move: false },
  };
}

function projectMove(game, move) {
  if (!offered(game, move) || move.from === "stock" || move.to === "stock") return null;
  const position = copyPosition(game.position);
  put(position, move.to, take(position, move.from, move.count));
  return projected(game, position, { type: "move", from: move.from, to: move.to, count: move.count });
}

// A click on the stock turns up to `draw` cards, or turns the waste back over.
function projectDraw(game, draw) {
  const p = game.position;
  if (p.stock === undefined || p.stock === null) return null;
  const position = copyPosition(p);
  if (p.stock > 0) {
    const n = Math.min(draw, p.stock);
    position.stock -= n;
    for (let k = 0; k < n; k++) position.waste.push(UNKNOWN);
    return projected(game, position, { type: "draw", from: "stock", to: "waste", count: n });
  }
  if (!p.waste.length) return null;
  position.stock = p.waste.length;
  position.waste = [];
  return projected(game, position, { type: "recycle", from: "waste", to: "stock", count: p.waste.length });
}

// The position an action leads to as far as the page can draw it, or null.
export function project(game, data, draw) {
  if (data.type === "draw") return projectDraw(game, draw);
  if (data.type === "move" && !data.steps) return projectMove(game, data);
  return null;
}

// The first card each move of a line carries, played out from `position`
// (null where the page cannot know it: a card still face down or in the
// stock when the line starts). For the names of a solver's line.
export function lineCards(position, moves) {
  const p = copyPosition(position);
  return moves.map((m) => {
    if (m.from === "stock" || m.to === "stock") {
      if (m.from === "stock") {
        const n = Math.min(m.count, p.stock || 0);
        p.stock -= n;
        for (let k = 0; k < n; k++) p.waste.push(UNKNOWN);
      } else {
        p.stock = p.waste.length;
        p.waste = [];
      }
      return null;
    }
    const cards = take(p, m.from, m.count);
    const [kind, index] = m.from.split(":");
    const pile = kind === "tableau" ? p.tableau[Number(index)] : null;
    // a card a move turns over is not known here
    if (pile && !pile.up.length && pile.down > 0) {
      pile.down -= 1;
      pile.up.push(UNKNOWN);
    }
    put(p, m.to, cards);
    const first = cards[0];
    return first && first !== UNKNOWN ? first : null;
  });
}
