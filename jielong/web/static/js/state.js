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
  return game.moves.filter((m) => m.from === from && m.count === count).map((m) => m.to);
}

// What one click on a source does: "send" a move at once when there is exactly
// one place to go, else "select". All empty free cells count as one place, and
// in FreeCell a card that can go home goes home.
export function clickPlan(game, from, count, family) {
  const dests = destinations(game, from, count);
  if (family === "freecell") {
    const home = dests.find((d) => d.startsWith("foundation:"));
    if (home) return { kind: "send", move: { from, to: home, count } };
  }
  const groups = new Map();
  for (const d of dests) {
    const key = d.startsWith("cell:") ? "cell" : d;
    if (!groups.has(key)) groups.set(key, d);
  }
  if (groups.size === 1) {
    const [to] = groups.values();
    return { kind: "send", move: { from, to, count } };
  }
  return { kind: "select", selection: { pile: from, count }, dests };
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
