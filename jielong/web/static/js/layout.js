// Where every pile sits, from the board's size alone: pure arithmetic so the
// table fits phones (7 or 8 columns across 390 px) and wide screens alike.
import { indexBand, indexSize } from "./cardart.js";

export const RATIO = 1.4;

// The card width the board allows before columns are considered.
function widest(columns, width, height, gap, large) {
  let cw = (width - gap * (columns + 1)) / columns;
  // short boards (landscape phones): a card row, a gap and a fanned column must fit
  cw = Math.min(cw, large ? 150 : 118, (height - 3 * gap) / (large ? 3.3 : 3.9) / RATIO);
  return Math.max(24, Math.floor(cw));
}

// Card sizes and the fans' smallest steps for a card width: a face-up card
// always shows its whole corner index, a face-down one a sliver.
export function cardMetrics(cw, large = false) {
  const ch = Math.round(cw * RATIO);
  const index = indexSize(cw, large);
  const band = (indexBand(index) / 100) * cw;
  const margin = Math.min(2, cw * 0.05);
  // squeezed to its last: the rank and the suit down to their baseline (a
  // J's hook or a Q's tail may go under the next card; no other rank looks
  // like either without it)
  const baseline = ((4 + index * 0.74 + 2) / 100) * cw;
  const minUp = Math.ceil(band + margin);
  return { cw, ch, index, minUp, squeezeUp: Math.min(minUp, Math.ceil(baseline + margin)), minDown: Math.max(3, Math.round(ch * 0.05)) };
}

// Wide, short boards (phones held sideways) put the stock, waste, cells and
// foundations beside the columns, so the columns get the board's full height.
export function sideways(width, height) {
  return width / height >= 2.4 && height < 480;
}

export function computeLayout(game, width, height, options = {}) {
  const large = Boolean(options.large);
  const p = game.position;
  const klondike = p.cells === undefined || p.cells === null;
  const columns = p.tableau.length;
  // a phone's width is what limits its cards: the gaps between them narrow
  const gap = width < 500 ? (large ? 2 : 3) : Math.max(4, Math.min(14, Math.round(width * 0.012)));
  const side = sideways(width, height);
  // side blocks: 2 x 2 foundations (and cells) plus the stock and waste
  const extra = side ? (klondike ? 3 : 4) : 0;
  const tableauTop = (ch) => (side ? gap : gap + ch + Math.max(gap * 2, Math.round(ch * 0.12)));
  let cw = side
    ? Math.max(24, Math.floor(Math.min((width - gap * (columns + extra + 3)) / (columns + extra), large ? 150 : 118)))
    : widest(columns, width, height, gap, large);
  // the longest column decides: its fan squeezes first (fanFor), and the
  // cards shrink only when it cannot fit even with every rank on its baseline
  let m = cardMetrics(cw, large);
  const fits = (mm) => {
    const room = height - tableauTop(mm.ch) - gap;
    const blocks = !side || 2 * mm.ch + 3 * gap + (klondike ? 2 * mm.minUp : 0) <= height;
    return blocks && p.tableau.every((pile) => pile.down * mm.minDown + Math.max(0, pile.up.length - 1) * mm.squeezeUp + mm.ch <= room);
  };
  while (m.cw > 24 && !fits(m)) m = cardMetrics(m.cw - 1, large);
  cw = m.cw;
  const ch = m.ch;
  // the waste fans sideways, or downwards beside the columns (whole indexes);
  // sideways, far enough to show a 10's two digits, short of the foundations
  const wasteShift = side ? m.minUp : Math.min(Math.round(cw * 0.42), Math.floor((cw + gap) / 2));
  const sideW = side ? 2 * cw + gap : 0;
  const used = columns * cw + (columns - 1) * gap + (side ? sideW + (klondike ? cw : sideW) + 4 * gap : 0);
  const left = Math.max(gap, Math.floor((width - used) / 2));
  const tableauLeft = side ? left + sideW + 2 * gap : left;
  const colX = (i) => tableauLeft + i * (cw + gap);
  const piles = {};
  const top = gap;
  let slot = { cw, ch };
  let wasteDown = false;
  if (side) {
    const rightX = colX(columns - 1) + cw + 2 * gap;
    const grid = (i, x0) => ({ x: x0 + (i % 2) * (cw + gap), y: top + Math.floor(i / 2) * (ch + gap), w: cw, h: ch });
    p.foundations.forEach((_, i) => (piles[`foundation:${i}`] = grid(i, klondike ? left : rightX)));
    if (klondike) {
      piles.stock = { x: rightX, y: top, w: cw, h: ch };
      piles.waste = { x: rightX, y: top + ch + gap, w: cw, h: ch + 2 * wasteShift };
      wasteDown = true;
    } else {
      p.cells.forEach((_, i) => (piles[`cell:${i}`] = grid(i, left)));
    }
  } else if (klondike) {
    piles.stock = { x: colX(0), y: top, w: cw, h: ch };
    piles.waste = { x: colX(1), y: top, w: cw + 2 * wasteShift, h: ch };
    p.foundations.forEach((_, i) => {
      piles[`foundation:${i}`] = { x: colX(columns - 4 + i), y: top, w: cw, h: ch };
    });
  } else {
    slot = splitRow(cw, gap, left, width, piles, p);
  }
  const tableauY = tableauTop(ch);
  const tableauH = Math.max(ch, height - tableauY - gap);
  // a tall board (a phone held upright) lets the fans open further, to fill
  // the height the width leaves free; larger cards open them further still
  const open = height > width * 1.3 ? (large ? 0.72 : 0.6) : 0.42;
  const fans = {};
  p.tableau.forEach((pile, i) => {
    const id = `tableau:${i}`;
    piles[id] = { x: colX(i), y: tableauY, w: cw, h: tableauH };
    fans[id] = fanFor(pile.down, pile.up.length, ch, tableauH, { ...m, open });
  });
  const clear = Math.round(open * 140) + 2;
  return { cw, ch, gap, piles, fans, index: m.index, clear, slot, wasteShift, wasteDown, side, width, height };
}

// FreeCell's top row: free cells on the left, foundations on the right, with
// a clear gap between the two groups. The gap comes from the side margins
// where there are some, else from slightly narrower top-row cards.
function splitRow(cw, gap, left, width, piles, p) {
  const want = Math.max(gap * 3, Math.round(cw * 0.6)) - gap;
  const spread = Math.max(0, Math.min(Math.floor(want / 2), left - gap));
  const shrink = Math.ceil(Math.max(0, want - 2 * spread) / 8);
  const sw = cw - shrink;
  const sh = Math.round(sw * RATIO);
  const x0 = left - spread;
  const right = width - x0;
  p.cells.forEach((_, i) => (piles[`cell:${i}`] = { x: x0 + i * (sw + gap), y: gap, w: sw, h: sh }));
  p.foundations.forEach((_, i) => {
    piles[`foundation:${i}`] = { x: right - (4 - i) * sw - (3 - i) * gap, y: gap, w: sw, h: sh };
  });
  return { cw: sw, ch: sh };
}

// Offsets of face-down and face-up cards in a pile. With room to spare the
// fan opens up (tall phone screens). Squeezed, the face-up cards give way to
// their whole corner index, then the face-down ones to a sliver, then the
// face-up ones to their ranks' baseline; the layout shrinks the cards before
// anything more.
export function fanFor(down, up, ch, room, limits = { minUp: ch * 0.17, minDown: ch * 0.05, open: 0.42 }) {
  let fd = ch * 0.13;
  let fu = Math.max(ch * 0.3, limits.minUp);
  const need = () => down * fd + Math.max(0, up - 1) * fu + ch;
  const upTo = (least) => (fu = Math.max(least, (room - ch - down * fd) / (up - 1)));
  if (up > 1 && need() < room) fu = Math.max(fu, Math.min(ch * limits.open, (room - ch - down * fd) / (up - 1)));
  if (need() > room && up > 1) upTo(limits.minUp);
  if (need() > room && down > 0) fd = Math.max(limits.minDown, (room - ch - Math.max(0, up - 1) * fu) / down);
  if (need() > room && up > 1) upTo(Math.min(limits.minUp, limits.squeezeUp ?? limits.minUp));
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
