// Drawing the table: one rebuild of the board per frame from the game state
// and the view state, then a short FLIP animation of the cards that moved.
import { faceSVG, isRed, suitSVG } from "./cardart.js";
import { cardName, pileName, t, variant } from "./i18n.js";
import { cardTops } from "./layout.js";
import { tt } from "./panels.js";
import { UNKNOWN } from "./state.js";

const SUITS = ["C", "D", "H", "S"];
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

export function motionAllowed() {
  return !reducedMotion.matches;
}

// the face's corner index size for the cards being drawn (set per redraw)
let faceIndex = 34;
let faceClear = 60;

// Where each pile and card goes: the markup names an entry (data-s) and the
// styles are set through the element's style object once the markup is in
// the page. The Content-Security-Policy refuses style="..." in markup.
let styles = [];

function styled(style) {
  styles.push(style);
  return ` data-s="${styles.length - 1}"`;
}

function cardHTML(code, key, index, style, classes = "") {
  const colour = isRed(code) ? "red" : "black";
  return (
    `<div class="card ${colour} suit-${code[1]} ${classes}" data-card="${code}" data-key="${code}" data-index="${index}"` +
    ` role="img" aria-label="${cardName(code)}"${styled(style)}>${faceSVG(code, faceIndex, faceClear)}</div>`
  );
}

function downHTML(key, index, style) {
  return `<div class="card down" data-key="${key}" data-index="${index}" role="img" aria-label="${t("card.down")}"${styled(style)}></div>`;
}

function pileLabel(id, down, up) {
  const parts = [pileName(id)];
  if (id === "stock") return down ? t("pile.stock", { n: down }) : tt("pile.stockEmpty");
  if (!down && !up.length) parts.push(t("pile.empty"));
  if (down) parts.push(t("pile.down", { n: down }));
  const top = up.at(-1);
  if (top) parts.push(t("pile.top", { card: top === UNKNOWN ? t("card.down") : cardName(top) }));
  return parts.join(t("lang.sep"));
}

function box(r) {
  return { left: `${r.x}px`, top: `${r.y}px`, width: `${r.w}px`, height: `${r.h}px` };
}

function at(left, top, size) {
  return { left: left ? `${left}px` : "0", top: top ? `${top}px` : "0", ...size };
}

function pileHTML(id, rect, inner, label, view, extra = "") {
  const kind = id.split(":")[0];
  const cls = [
    "pile",
    kind,
    view.dests.includes(id) ? "dest" : "",
    view.hint?.move?.to === id ? "hint-dst" : "",
    view.hint?.move?.from === id ? "hint-from" : "",
    view.focus === id ? "focus" : "",
    extra,
  ].join(" ");
  const tab = view.focus === id ? 0 : -1;
  return `<div class="${cls}" data-pile="${id}" role="group" tabindex="${tab}" aria-label="${label}"${styled(box(rect))}><div class="slot"></div>${inner}</div>`;
}

function runClasses(view, id, index, length) {
  const classes = [];
  const sel = view.selection;
  if (sel && sel.pile === id && index >= length - sel.count) classes.push("sel");
  const run = view.overlay;
  if (run && run.pile === id && index >= length - run.count) classes.push("run");
  const hint = view.hint?.move;
  if (hint && hint.from === id && index >= length - hint.count) classes.push("hint-src");
  return classes.join(" ");
}

// The board's markup and the styles its data-s attributes name.
export function boardHTML(game, view, layout) {
  styles = [];
  const p = game.position;
  const { ch, cw, piles, fans } = layout;
  const size = { width: `${cw}px`, height: `${ch}px` };
  // free cells and foundations may be a little narrower than the columns
  const slotSize = { width: `${layout.slot.cw}px`, height: `${layout.slot.ch}px` };
  faceIndex = layout.index;
  faceClear = layout.clear;
  const out = [];
  if (p.stock !== undefined && p.stock !== null) {
    const inner = p.stock
      ? downHTML("stock", 0, at(0, 0, size)) + `<span class="badge">${p.stock}</span>`
      : `<span class="recycle" aria-hidden="true">↻</span>`;
    out.push(pileHTML("stock", piles.stock, inner, pileLabel("stock", p.stock, []), view));
    const shown = p.waste.slice(-3);
    const waste = shown
      .map((code, i) => {
        const index = p.waste.length - shown.length + i;
        const top = i === shown.length - 1;
        const cls = top ? runClasses(view, "waste", 0, 1) : "under";
        const shift = i * layout.wasteShift;
        const style = layout.wasteDown ? at(0, shift, size) : at(shift, 0, size);
        // a turned card the answer has yet to name
        if (code === UNKNOWN) return downHTML(`waste@${index}`, index, style);
        return cardHTML(code, code, index, style, cls);
      })
      .join("");
    out.push(pileHTML("waste", piles.waste, waste, pileLabel("waste", 0, shown), view));
  }
  (p.cells || []).forEach((code, i) => {
    const id = `cell:${i}`;
    const inner = code ? cardHTML(code, code, 0, at(0, 0, slotSize), runClasses(view, id, 0, 1)) : "";
    out.push(pileHTML(id, piles[id], inner, pileLabel(id, 0, code ? [code] : []), view));
  });
  p.foundations.forEach((code, i) => {
    const id = `foundation:${i}`;
    const mark = variant?.foundationsBySuit ? `<span class="mark">${suitSVG(SUITS[i])}</span>` : `<span class="mark ace">A</span>`;
    const inner = mark + (code ? cardHTML(code, code, 0, at(0, 0, slotSize), runClasses(view, id, 0, 1)) : "");
    out.push(pileHTML(id, piles[id], inner, pileLabel(id, 0, code ? [code] : []), view, variant?.foundationsBySuit ? `suit-${SUITS[i]}` : ""));
  });
  p.tableau.forEach((pile, i) => {
    const id = `tableau:${i}`;
    const tops = cardTops(pile.down, pile.up.length, fans[id]);
    const length = pile.down + pile.up.length;
    let inner = "";
    for (let k = 0; k < pile.down; k++) inner += downHTML(`${id}#${k}`, k, at(0, tops[k], size));
    pile.up.forEach((code, j) => {
      const index = pile.down + j;
      inner += cardHTML(code, code, index, at(0, tops[index], size), runClasses(view, id, index, length));
    });
    out.push(pileHTML(id, piles[id], inner, pileLabel(id, pile.down, pile.up), view));
  });
  return { html: out.join(""), styles };
}

export function draw(board, game, view, layout) {
  const before = new Map();
  const animate = motionAllowed() && view.animate;
  if (animate) for (const el of board.querySelectorAll(".card[data-key]")) before.set(el.dataset.key, el.getBoundingClientRect());
  const hadFocus = board.contains(document.activeElement);
  board.style.setProperty("--cw", `${layout.cw}px`);
  board.style.setProperty("--ch", `${layout.ch}px`);
  const built = boardHTML(game, view, layout);
  board.innerHTML = built.html;
  for (const el of board.querySelectorAll("[data-s]")) {
    Object.assign(el.style, built.styles[Number(el.dataset.s)]);
    el.removeAttribute("data-s");
  }
  board.dataset.game = game.id;
  board.dataset.version = String(game.version);
  if (hadFocus || view.keyboard) board.querySelector(`[data-pile="${view.focus}"]`)?.focus({ preventScroll: true });
  if (!animate) return;
  const stockRect = board.querySelector('[data-pile="stock"]')?.getBoundingClientRect();
  const drew = game.last && (game.last.type === "draw" || game.last.from === "stock");
  for (const el of board.querySelectorAll(".card[data-key]")) {
    const inWaste = el.closest('[data-pile="waste"]');
    // a card named by the answer lands where its face-down stand-in already is
    let old = before.get(el.dataset.key) || (inWaste && before.get(`waste@${el.dataset.index}`));
    if (!old && stockRect && inWaste && drew) old = stockRect;
    if (!old) continue;
    const now = el.getBoundingClientRect();
    const dx = old.left - now.left;
    const dy = old.top - now.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    const glide = el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], {
      duration: 160,
      easing: "ease-out",
    });
    // a click during the glide is for the pile underneath (the stock, say), not the moving card
    el.style.pointerEvents = "none";
    glide.finished.then(() => (el.style.pointerEvents = ""), () => {});
  }
}

// Mark the legal destinations during a drag without rebuilding the board.
export function markDests(board, dests, over) {
  for (const el of board.querySelectorAll("[data-pile]")) {
    el.classList.toggle("dest", dests.includes(el.dataset.pile));
    el.classList.toggle("over", el.dataset.pile === over);
  }
}

// A translucent copy of the hinted cards glides from source to target.
export function ghost(board, move) {
  requestAnimationFrame(() => {
    const from = [...board.querySelectorAll(`[data-pile="${move.from}"] .card[data-card]`)].slice(-move.count);
    const to = board.querySelector(`[data-pile="${move.to}"]`);
    if (!from.length || !to) return;
    const target = to.querySelector(".card:last-of-type") || to;
    const tr = target.getBoundingClientRect();
    const fr = from[0].getBoundingClientRect();
    const dy = tr.top - fr.top + (to.dataset.pile.startsWith("tableau") && target !== to ? tr.height * 0.3 : 0);
    const dx = tr.left - fr.left;
    for (const el of from) {
      const r = el.getBoundingClientRect();
      const copy = el.cloneNode(true);
      copy.removeAttribute("data-card");
      copy.removeAttribute("data-key");
      copy.setAttribute("aria-hidden", "true");
      copy.className += " ghost";
      Object.assign(copy.style, { position: "fixed", left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
      document.body.append(copy);
      const end = `translate(${dx}px, ${dy}px)`;
      if (motionAllowed()) {
        copy.animate([{ transform: "none", opacity: 0.9 }, { transform: end, opacity: 0.75 }], { duration: 190, easing: "ease-out", fill: "forwards" });
      } else copy.style.transform = end;
      setTimeout(() => copy.remove(), 1200);
    }
  });
}
