// A modal question with two answers, for choices a player could regret (a new
// deal over a game in progress). The safe answer has the focus; Esc gives it;
// Tab stays inside; keys pressed while it is open go nowhere else.
let open = null;

export function asking() {
  return open !== null;
}

export function ask({ title, body, yes, no }) {
  if (open) return Promise.resolve(false);
  const returnTo = document.activeElement;
  const host = document.createElement("div");
  host.className = "panel-host dialog-host";
  const box = document.createElement("div");
  box.className = "panel confirm";
  box.setAttribute("role", "dialog");
  box.setAttribute("aria-modal", "true");
  box.setAttribute("aria-labelledby", "confirm-title");
  box.setAttribute("aria-describedby", "confirm-body");
  const h = document.createElement("h2");
  h.id = "confirm-title";
  h.textContent = title;
  const p = document.createElement("p");
  p.id = "confirm-body";
  p.textContent = body;
  const exits = document.createElement("div");
  exits.className = "exits";
  const keep = document.createElement("button");
  keep.type = "button";
  keep.dataset.answer = "no";
  keep.textContent = no;
  const go = document.createElement("button");
  go.type = "button";
  go.dataset.answer = "yes";
  go.textContent = yes;
  exits.append(keep, go);
  box.append(h, p, exits);
  host.append(box);
  document.body.append(host);
  keep.focus();
  return new Promise((resolve) => {
    open = { host };
    const close = (answer) => {
      open = null;
      host.remove();
      if (returnTo instanceof HTMLElement && returnTo.isConnected) returnTo.focus({ preventScroll: true });
      resolve(answer);
    };
    host.addEventListener("click", (e) => {
      const b = e.target.closest("button[data-answer]");
      if (b) close(b.dataset.answer === "yes");
      else if (!box.contains(e.target)) close(false);
    });
    host.addEventListener("keydown", (e) => {
      e.stopPropagation();
      if (e.key === "Escape") {
        e.preventDefault();
        close(false);
      } else if (e.key === "Tab") {
        e.preventDefault();
        (document.activeElement === keep ? go : keep).focus();
      }
    });
  });
}
