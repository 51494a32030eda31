// Pointer gestures on the board (mouse, pen and touch alike): tap, drag and
// long press. The controller decides what each gesture means.
const DRAG_START = 6;
const LONG_PRESS_MS = 450;

function pileAt(x, y) {
  for (const el of document.elementsFromPoint(x, y)) {
    if (el.classList.contains("dragging")) continue;
    const pile = el.closest("[data-pile]");
    if (pile) return pile.dataset.pile;
  }
  return null;
}

export function snapBack(elements) {
  for (const el of elements) {
    const from = el.style.transform;
    el.classList.remove("dragging");
    el.style.transform = "";
    if (from && window.matchMedia("(prefers-reduced-motion: no-preference)").matches) {
      el.animate([{ transform: from }, { transform: "none" }], { duration: 150, easing: "ease-out" });
    }
  }
}

export function attachPointer(board, h) {
  let press = null;

  function finish() {
    if (press?.timer) clearTimeout(press.timer);
    window.removeEventListener("pointermove", onMove);
    window.removeEventListener("pointerup", onUp);
    window.removeEventListener("pointercancel", onCancel);
    press = null;
  }

  function startDrag(e) {
    const info = h.pickable(press.pile, press.index);
    if (!info) return false;
    const els = [...board.querySelectorAll(`[data-pile="${press.pile}"] .card[data-card]`)].filter(
      (el) => Number(el.dataset.index) >= info.startIndex && !el.classList.contains("under"),
    );
    if (!els.length) return false;
    els.forEach((el) => el.classList.add("dragging"));
    press.drag = { ...info, els };
    h.dragStart(press.pile, info.count);
    onMove(e);
    return true;
  }

  function onMove(e) {
    if (!press || e.pointerId !== press.id) return;
    const dx = e.clientX - press.x;
    const dy = e.clientY - press.y;
    if (press.long) {
      h.overlaySlide(e.clientX, e.clientY);
      return;
    }
    if (!press.drag) {
      if (Math.hypot(dx, dy) < DRAG_START || press.index === null) return;
      clearTimeout(press.timer);
      press.timer = null;
      if (!startDrag(e)) {
        press.index = null;
        return;
      }
    }
    e.preventDefault();
    for (const el of press.drag.els) el.style.transform = `translate(${dx}px, ${dy}px)`;
    h.dragOver(pileAt(e.clientX, e.clientY));
  }

  function onUp(e) {
    if (!press || e.pointerId !== press.id) return;
    const p = press;
    finish();
    if (p.long) h.overlayRelease(e.clientX, e.clientY);
    else if (p.drag) h.drop(p.pile, p.drag.count, pileAt(e.clientX, e.clientY), p.drag.els);
    else h.tap(p.pile, p.index);
  }

  function onCancel(e) {
    if (!press || e.pointerId !== press.id) return;
    const p = press;
    finish();
    if (p.drag) {
      snapBack(p.drag.els);
      h.dragEnd();
    }
  }

  board.addEventListener("pointerdown", (e) => {
    if (press || (e.pointerType === "mouse" && e.button !== 0)) return;
    const pileEl = e.target.closest("[data-pile]");
    if (!pileEl) return;
    const cardEl = e.target.closest(".card");
    const index = cardEl ? Number(cardEl.dataset.index) : null;
    // touch pointers are captured by their first target; release so that
    // elementsFromPoint sees what is under the finger as it moves
    if (e.target.hasPointerCapture?.(e.pointerId)) e.target.releasePointerCapture(e.pointerId);
    press = { id: e.pointerId, x: e.clientX, y: e.clientY, pile: pileEl.dataset.pile, index, drag: null, long: false };
    press.timer = setTimeout(() => {
      if (press && !press.drag && h.longPress(press.pile, press.index, press.x, press.y)) press.long = true;
    }, LONG_PRESS_MS);
    window.addEventListener("pointermove", onMove, { passive: false });
    window.addEventListener("pointerup", onUp);
    window.addEventListener("pointercancel", onCancel);
  });
  board.addEventListener("contextmenu", (e) => e.preventDefault());
}
