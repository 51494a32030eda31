// The win's cascade: the foundations' cards leap off one by one and bounce
// down the screen. Any tap or key skips it; it never plays when the player
// prefers reduced motion.
import { faceSVG, isRed } from "./cardart.js";
import { t } from "./i18n.js";

const RANKS = "KQJT98765432A";
const STEPS = 28;

let running = null;

function path(x0, y0, floor, width, speed) {
  // a thrown card under gravity, losing a third of its speed at each bounce
  const frames = [];
  let x = x0;
  let y = y0;
  let vx = speed;
  let vy = -Math.abs(speed) * 0.6;
  const dt = 0.08;
  for (let i = 0; i <= STEPS; i++) {
    frames.push({ transform: `translate(${Math.round(x - x0)}px, ${Math.round(y - y0)}px)` });
    vy += 2200 * dt;
    x += vx * dt;
    y += vy * dt;
    if (y > floor) {
      y = floor;
      vy = -vy * 0.66;
    }
    if (x < -width || x > window.innerWidth + width) break;
  }
  return frames;
}

export function skipCelebration() {
  if (!running) return;
  running.stop();
}

export function celebrate(board, game) {
  if (window.matchMedia("(prefers-reduced-motion: reduce)").matches || running) return;
  const layer = document.createElement("div");
  layer.className = "cascade";
  layer.setAttribute("aria-hidden", "true");
  const note = document.createElement("p");
  note.className = "skip";
  note.textContent = t("win.skip");
  layer.append(note);
  document.body.append(layer);
  const animations = [];
  const timers = [];
  const stop = () => {
    timers.forEach(clearTimeout);
    animations.forEach((a) => a.cancel());
    layer.remove();
    removeEventListener("keydown", stop, true);
    running = null;
  };
  running = { stop };
  layer.addEventListener("pointerdown", stop);
  addEventListener("keydown", stop, true);
  const homes = game.position.foundations.map((top, i) => ({ top, el: board.querySelector(`[data-pile="foundation:${i}"]`) }));
  let n = 0;
  for (const rank of RANKS) {
    homes.forEach(({ top, el }) => {
      if (!top || !el) return;
      const code = rank + top[1];
      const r = el.getBoundingClientRect();
      const delay = n++ * 70;
      timers.push(
        setTimeout(() => {
          const card = document.createElement("div");
          card.className = `card ${isRed(code) ? "red" : "black"} suit-${code[1]}`;
          Object.assign(card.style, { position: "fixed", left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px` });
          card.innerHTML = faceSVG(code);
          layer.append(card);
          const speed = (Math.random() < 0.5 ? -1 : 1) * (180 + Math.random() * 260);
          const frames = path(r.left, r.top, window.innerHeight - r.height, r.width, speed);
          const a = card.animate(frames, { duration: frames.length * 80, easing: "linear", fill: "forwards" });
          animations.push(a);
        }, delay),
      );
    });
  }
  timers.push(setTimeout(stop, n * 70 + STEPS * 80 + 200));
}
