// The position dialog: paste (or drop) a position to play it, copy the current
// one as text or as a link, and the solvers' verdict with a step-through of
// their line (analysis.js). The server reads every text and says what is
// wrong with it, in the player's language; nothing is parsed here.
import { attachAnalysis, el } from "./analysis.js";
import { call } from "./http.js";
import { t, variant } from "./i18n.js";
import { toast } from "./paint.js";

function button(id, label, extra = {}) {
  return el("button", { type: "button", id, ...extra, text: label });
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast(t("analysis.copied"));
    return true;
  } catch {
    toast(t("analysis.copyFailed"));
    return false;
  }
}

// Select line `n` (from 1) of the textarea: where the server found the fault.
function markLine(area, n) {
  const lines = area.value.split("\n");
  if (!n || n > lines.length) return;
  const start = lines.slice(0, n - 1).reduce((sum, l) => sum + l.length + 1, 0);
  area.setSelectionRange(start, start + lines[n - 1].length);
}

function pasteSection(ctl, analysis) {
  const { adopt, request } = ctl;
  const area = el("textarea", {
    id: "position-input",
    rows: "9",
    spellcheck: "false",
    autocomplete: "off",
    "aria-describedby": "position-help position-error",
  });
  const error = el("p", { id: "position-error", class: "board-error", role: "alert" });
  // the browser's own file button speaks the browser's language, not the page's
  const file = el("input", { type: "file", id: "position-file", class: "sr-only", accept: ".txt,.board,text/plain" });
  const pick = el("label", { for: "position-file", class: "file-button", text: t("analysis.openFile") });
  const start = button("position-start", t("analysis.start"), { class: "primary" });

  function fail(text) {
    error.textContent = text;
    area.setAttribute("aria-invalid", "true");
  }
  function clear() {
    error.textContent = "";
    area.removeAttribute("aria-invalid");
  }
  async function readFile(f) {
    try {
      area.value = await f.text();
      clear();
    } catch {
      fail(t("analysis.fileFailed"));
    }
  }
  async function open() {
    clear();
    start.setAttribute("aria-busy", "true");
    const res = await request(call("POST", "/api/games", { variant: variant.id, position: area.value }));
    start.removeAttribute("aria-busy");
    if (!res) return;
    if (res.status === 201 || res.status === 200) {
      adopt(res.body);
      return analysis.run();
    }
    fail(res.body?.error?.message || t("error.network"));
    markLine(area, res.body?.error?.position_error?.line);
  }

  area.addEventListener("input", clear);
  file.addEventListener("change", () => file.files[0] && readFile(file.files[0]));
  start.addEventListener("click", open);
  const section = el(
    "section",
    { class: "board-paste", "aria-labelledby": "position-paste-title" },
    el("h3", { id: "position-paste-title", text: t("analysis.paste") }),
    el("p", { id: "position-help", class: "board-help", text: t("analysis.pasteHelp") }),
    area,
    error,
    el("div", { class: "board-row" }, start, file, pick),
  );
  // a text file dropped anywhere on the section fills the box
  section.addEventListener("dragover", (e) => {
    e.preventDefault();
    section.classList.add("drop");
  });
  section.addEventListener("dragleave", () => section.classList.remove("drop"));
  section.addEventListener("drop", (e) => {
    e.preventDefault();
    section.classList.remove("drop");
    const f = e.dataTransfer?.files?.[0];
    if (f) readFile(f);
    else if (e.dataTransfer?.getData("text/plain")) area.value = e.dataTransfer.getData("text/plain");
  });
  return section;
}

function shareSection(table, request) {
  const text = el("textarea", { id: "position-copy", rows: "9", readonly: "", spellcheck: "false" });
  const link = el("input", { id: "position-link", type: "url", readonly: "" });
  let answer = null;

  async function fetchPosition() {
    const game = table.confirmed || table.game;
    if (!game) return null;
    if (answer && answer.id === game.id && answer.version === game.version) return answer;
    const res = await request(call("GET", `/api/games/${encodeURIComponent(game.id)}/position`));
    if (res?.status !== 200) return null;
    answer = { ...res.body, id: game.id, url: new URL(res.body.link, location.href).href };
    return answer;
  }
  async function show(key) {
    const a = await fetchPosition();
    if (!a) return;
    link.value = a.url;
    text.value = key === "url" ? a.text : a[key];
    link.hidden = text.hidden = false;
    if (!(await copy(a[key]))) (key === "url" ? link : text).select();
  }

  const section = el(
    "section",
    { class: "board-share", "aria-labelledby": "position-share-title" },
    el("h3", { id: "position-share-title", text: t("analysis.share") }),
    el(
      "div",
      { class: "board-row" },
      button("position-copy-text", t("analysis.copyText")),
      button("position-copy-pysol", t("analysis.copyPysol")),
      button("position-copy-link", t("analysis.copyLink")),
    ),
    link,
    text,
  );
  section.querySelector("#position-copy-text").addEventListener("click", () => show("text"));
  section.querySelector("#position-copy-pysol").addEventListener("click", () => show("pysol"));
  section.querySelector("#position-copy-link").addEventListener("click", () => show("url"));
  function reset() {
    text.value = link.value = "";
    // shown once there is something to show
    text.hidden = link.hidden = true;
  }
  reset();
  return { section, reset };
}

/**
 * @param {import("./state.js").Table} table
 * @param {import("./controller.js").Controller} ctl
 * @param {import("./demo.js").Demo} demo
 */
export function attachBoardTools(table, ctl, demo) {
  if (!variant) return;
  const css = el("link", { rel: "stylesheet", href: "/static/css/board.css" });
  document.head.append(css);
  const dialog = el("dialog", { id: "board-tools", class: "board-tools", "aria-labelledby": "board-tools-title" });
  const analysis = attachAnalysis(
    table,
    ctl,
    demo,
    () => dialog.open,
    () => openDialog(),
    () => dialog.close(),
  );
  const share = shareSection(table, ctl.request);
  const close = button("board-tools-close", t("analysis.close"), { class: "close" });
  dialog.append(
    el("div", { class: "board-head" }, el("h2", { id: "board-tools-title", text: t("analysis.title") }), close),
    pasteSection(ctl, analysis),
    analysis.section,
    share.section,
  );
  document.body.append(dialog);
  close.addEventListener("click", () => dialog.close());
  // closed (button, Esc): the step bar takes over when a line is being played
  dialog.addEventListener("close", () => analysis.refresh());
  // the table's letter keys (N: new deal...) stay out of the dialog
  dialog.addEventListener("keydown", (e) => e.stopPropagation());

  const opener = button("board-tools-open", t("analysis.open"), { class: "board-tools-open", "aria-haspopup": "dialog" });
  function openDialog() {
    share.reset();
    dialog.showModal();
    analysis.refresh();
  }
  opener.addEventListener("click", openDialog);
  const langs = document.querySelector("header.top .langs");
  langs?.before(opener);
}
