// The engine on this device: one Web Worker running the site's own Python
// engine (engine/worker.js). Started once the board is painted, when the
// browser is idle (on the first hint instead when the player asked the
// browser to save data), or at once when the server cannot be reached.
// Answers have the shapes of the server's: {status, body}.
const DEVICE_ONLY = "jielong.deviceOnly";

let worker = null;
let state = "off"; // off | booting | ready | failed
let next = 1;
const waiting = new Map();
let readyResolve = null;
const readyPromise = new Promise((resolve) => {
  readyResolve = resolve;
});
export const timings = { bootMs: null, runtimeMs: null, snapshot: null };

export function supported() {
  return typeof Worker === "function" && typeof WebAssembly === "object";
}

export function engineState() {
  return state;
}

export function engineReady() {
  return state === "ready";
}

// Resolves true once the engine answers, false if it cannot start.
export function whenReady() {
  start();
  return readyPromise;
}

// Runs `fn` once the engine answers, if it ever starts (it does not start it).
export function onceReady(fn) {
  readyPromise.then((ok) => {
    if (ok) fn();
  });
}

function failed() {
  state = "failed";
  document.documentElement.dataset.engine = state;
  readyResolve(false);
}

export function start() {
  if (state !== "off") return;
  if (!supported()) return failed();
  state = "booting";
  document.documentElement.dataset.engine = state;
  try {
    worker = new Worker("/static/js/engine/worker.js", { type: "module" });
  } catch {
    return failed();
  }
  worker.onmessage = ({ data }) => {
    if ("ready" in data) {
      state = data.ready ? "ready" : "failed";
      timings.bootMs = data.ms ?? null;
      timings.runtimeMs = data.runtimeMs ?? null;
      // "made" on a first start, "restored" when the kept memory was used
      timings.snapshot = data.snapshot ?? null;
      document.documentElement.dataset.engine = state;
      readyResolve(data.ready);
      if (data.ready) keepForOffline();
      return;
    }
    const done = waiting.get(data.id);
    if (!done) return;
    waiting.delete(data.id);
    if (data.failed) done.reject(new Error(data.failed));
    else done.resolve(data.answer);
  };
  worker.onerror = () => {
    failed();
    for (const done of waiting.values()) done.reject(new Error("engine stopped"));
    waiting.clear();
  };
}

// The engine's files into the service worker's cache, for play offline: a
// worker started before the service worker took the page over fetched them
// past it (the browser's HTTP cache answers these fetches again).
async function keepForOffline() {
  const sw = navigator.serviceWorker;
  if (!sw) return;
  if (!sw.controller) {
    sw.addEventListener("controllerchange", keepForOffline, { once: true });
    return;
  }
  try {
    const manifest = await (await fetch("/engine/manifest.json")).json();
    if (!manifest.available) return;
    const files = [manifest.package, ...manifest.files.map((f) => manifest.runtime + f)];
    await Promise.all(files.map((u) => fetch(u)));
    document.documentElement.dataset.engineKept = "1";
  } catch {
    // offline already: what the worker has is what there is
  }
}

// Starts the engine once the page has loaded and settled (its download and
// start would otherwise share a phone's network and processor with the
// page's own first paint), when the browser has time; at once on the
// player's first input, which may well be a hint.
const SETTLE_MS = 4000;
export function startWhenIdle() {
  if (navigator.connection?.saveData) return; // the first hint starts it
  const go = () => start();
  const later = () => setTimeout(() => ("requestIdleCallback" in window ? requestIdleCallback(go, { timeout: 3000 }) : go()), SETTLE_MS);
  if (document.readyState === "complete") later();
  else window.addEventListener("load", later, { once: true });
  for (const kind of ["pointerdown", "keydown"]) window.addEventListener(kind, go, { once: true, passive: true });
}

// One request to the engine: {status, body} as the server would answer.
export async function ask(op, body) {
  if (!(await whenReady())) throw new Error("no engine on this device");
  const id = next++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    worker.postMessage({ id, op, body: { ...body, lang: document.documentElement.lang } });
  });
}

// The player's choice: solve on this device only, never on the server.
export function deviceOnly() {
  try {
    return localStorage.getItem(DEVICE_ONLY) === "1";
  } catch {
    return false;
  }
}

export function attachDeviceOnlySwitch(input) {
  if (!input) return;
  input.checked = deviceOnly();
  input.addEventListener("change", () => {
    try {
      localStorage.setItem(DEVICE_ONLY, input.checked ? "1" : "0");
    } catch {
      // the choice lasts for this page
    }
    if (input.checked) start();
  });
}
