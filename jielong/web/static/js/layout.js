// Where every pile sits, from the board's size alone: pure arithmetic so the
// table fits phones (7 or 8 columns across 390 px) and wide screens alike.
export const RATIO = 1.4;

export function computeLayout(game, width, height) {
  const p = game.position;
  const klondike = p.cells === undefined || p.cells === null;
  const columns = p.tableau.length;
  const gap = Math.max(4, Math.min(14, Math.round(width * 0.012)));
  let cw = (width - gap * (columns + 1)) / columns;
  // short boards (landscape phones): a card row, a gap and a fanned column must fit
  cw = Math.min(cw, 118, (height - 3 * gap) / 3.9 / RATIO);
  cw = Math.max(24, Math.floor(cw));
  const ch = Math.round(cw * RATIO);
  const used = columns * cw + (columns - 1) * gap;
  const left = Math.max(gap, Math.floor((width - used) / 2));
  const colX = (i) => left + i * (cw + gap);
  const piles = {};
  const top = gap;
  if (klondike) {
    piles.stock = { x: colX(0), y: top, w: cw, h: ch };
    piles.waste = { x: colX(1), y: top, w: cw + 2 * Math.round(cw * 0.3), h: ch };
    p.foundations.forEach((_, i) => {
      piles[`foundation:${i}`] = { x: colX(columns - 4 + i), y: top, w: cw, h: ch };
    });
  } else {
    p.cells.forEach((_, i) => (piles[`cell:${i}`] = { x: colX(i), y: top, w: cw, h: ch }));
    p.foundations.forEach((_, i) => {
      piles[`foundation:${i}`] = { x: colX(columns - 4 + i), y: top, w: cw, h: ch };
    });
  }
  const tableauY = top + ch + Math.max(gap * 2, Math.round(ch * 0.12));
  const tableauH = Math.max(ch, height - tableauY - gap);
  const fans = {};
  p.tableau.forEach((pile, i) => {
    const id = `tableau:${i}`;
    piles[id] = { x: colX(i), y: tableauY, w: cw, h: tableauH };
    fans[id] = fanFor(pile.down, pile.up.length, ch, tableauH);
  });
  return { cw, ch, gap, piles, fans, wasteShift: Math.round(cw * 0.3), width, height };
}

// Offsets of face-down and face-up cards in a pile, squeezed to fit its height.
export function fanFor(down, up, ch, room) {
  let fd = ch * 0.13;
  let fu = ch * 0.3;
  const need = () => down * fd + Math.max(0, up - 1) * fu + ch;
  if (need() > room && up > 1) fu = Math.max(ch * 0.17, (room - ch - down * fd) / (up - 1));
  if (need() > room && down > 0) fd = Math.max(ch * 0.05, (room - ch - Math.max(0, up - 1) * fu) / down);
  return { down: fd, up: fu };
}

// Card tops within a pile, one per card (down ones first).
export function cardTops(down, up, fan) {
  const tops = [];
  let y = 0;
  for (let i = 0; i < down; i++) {
    tops.push(Math.round(y));
    y += fan.down;
  }
  for (let i = 0; i < up; i++) {
    tops.push(Math.round(y));
    y += fan.up;
  }
  return tops;
}
