// The long-press overlay 「從 X 起 N 張」: arrows move the run's start, and
// can be reached by sliding the finger without lifting it.
import { isRed, rankText } from "./cardart.js";
import { cardName, t } from "./i18n.js";

const SYMBOL = { C: "♣", D: "♦", H: "♥", S: "♠" };
const REPEAT_MS = 380;
// A finger resting on an arrow starts repeating only after this pause, so a
// slide that merely passes over an arrow steps once.
const REPEAT_DELAY_MS = 700;

// The box of a column's face-up cards on the screen: every run the overlay
// can choose lies inside it.
export function faceUpBox(board, pile, down) {
  const cards = [...board.querySelectorAll(`[data-pile="${pile}"] .card`)].filter((c) => Number(c.dataset.index) >= down);
  if (!cards.length) return null;
  const first = cards[0].getBoundingClientRect();
  const last = cards.at(-1).getBoundingClientRect();
  return { left: first.left, right: first.right, width: first.width, top: first.top, bottom: last.bottom };
}

export function shortCard(code) {
  return `${SYMBOL[code[1]]}${rankText(code)}`;
}

export class RunOverlay {
  constructor(host, onAct) {
    this.host = host;
    this.onAct = onAct;
    this.el = null;
    this.hover = null;
    this.repeat = null;
  }

  get open() {
    return this.el !== null;
  }

  show(run, around) {
    if (!this.el) {
      this.el = document.createElement("div");
      this.el.className = "run-overlay";
      this.el.setAttribute("role", "dialog");
      this.el.addEventListener("click", (e) => {
        const act = e.target.closest("[data-act]")?.dataset.act;
        if (act) this.onAct(act);
      });
      this.host.append(this.el);
    }
    const colour = isRed(run.card) ? "red" : "black";
    const label = t("overlay.run", { card: shortCard(run.card), n: run.count });
    const tooLong = run.limit !== null && run.count > run.limit ? t("overlay.tooLong", { n: run.count, m: run.limit }) : "";
    this.el.setAttribute("aria-label", label);
    this.el.innerHTML =
      `<button type="button" class="close" data-act="close" aria-label="${t("action.close")}">×</button>` +
      `<button type="button" class="arrow" data-act="up" aria-label="${t("overlay.up")}" ${run.count >= run.max ? "disabled" : ""}>▲</button>` +
      `<button type="button" class="preview" data-act="confirm" aria-label="${t("overlay.confirm")}: ${cardName(run.card)}">` +
      `<span class="mini ${colour}">${shortCard(run.card)}</span>` +
      `<span class="label">${label}</span>` +
      (tooLong ? `<span class="too-long">${tooLong}</span>` : "") +
      `</button>` +
      `<button type="button" class="arrow" data-act="down" aria-label="${t("overlay.down")}" ${run.count <= 1 ? "disabled" : ""}>▼</button>`;
    if (around) this.place(around);
  }

  // Beside the column's face-up cards when there is room, else above or
  // below them: never over the run being chosen, whatever its length.
  place(box) {
    const margin = 8;
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const w = Math.min(220, vw - 2 * margin);
    this.el.style.width = `${w}px`;
    const h = this.el.offsetHeight;
    const clampX = (x) => Math.max(margin, Math.min(vw - w - margin, x));
    const clampY = (y) => Math.max(margin, Math.min(vh - h - margin, y));
    let x;
    let y;
    if (box.right + margin + w <= vw - margin) [x, y] = [box.right + margin, clampY(box.top)];
    else if (box.left - margin - w >= margin) [x, y] = [box.left - margin - w, clampY(box.top)];
    else if (box.top - margin - h >= margin) [x, y] = [clampX(box.left + box.width / 2 - w / 2), box.top - margin - h];
    else if (box.bottom + margin + h <= vh - margin) [x, y] = [clampX(box.left + box.width / 2 - w / 2), box.bottom + margin];
    else [x, y] = [clampX(box.left + box.width / 2 - w / 2), margin];
    this.el.style.left = `${x}px`;
    this.el.style.top = `${y}px`;
  }

  hide() {
    this.stopRepeat();
    this.el?.remove();
    this.el = null;
    this.hover = null;
  }

  actAt(x, y) {
    const hit = document.elementFromPoint(x, y)?.closest("[data-act]");
    return hit && this.el?.contains(hit) ? hit.dataset.act : null;
  }

  // The finger slides while still pressed: entering an arrow steps once, and
  // staying on it keeps stepping.
  slide(x, y) {
    const act = this.actAt(x, y);
    if (act === this.hover) return;
    this.hover = act;
    this.stopRepeat();
    for (const b of this.el?.querySelectorAll(".arrow") || []) b.classList.toggle("hot", b.dataset.act === act);
    if (act === "up" || act === "down") {
      this.onAct(act);
      this.repeat = setTimeout(() => {
        this.onAct(act);
        this.repeat = setInterval(() => this.onAct(act), REPEAT_MS);
      }, REPEAT_DELAY_MS);
    }
  }

  release(x, y) {
    this.stopRepeat();
    return this.actAt(x, y) === "close" ? "close" : "confirm";
  }

  stopRepeat() {
    // clearTimeout and clearInterval share one id space
    if (this.repeat) clearInterval(this.repeat);
    this.repeat = null;
  }
}
