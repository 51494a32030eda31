// The game's requests (through http.js). Hints and analyses are asked of the
// engine on this device first (engine/), and of the server only when the
// device has no engine yet (or at all), or when its search ran out without
// an answer; with "solve on this device only" never. Each answer says where
// it was computed (`computed`: device or server).
import { ask, deviceOnly, engineReady, whenReady } from "./engine/client.js";
import { caughtUp, hold, isDeviceGame } from "./engine/device.js";
import { call } from "./http.js";

// A hint that names a move, or a verdict that no move helps.
function answered(body) {
  return body && body.kind !== "heuristic" && body.kind !== "none" && (body.move || ["no_progress", "unsolvable", "exhausted"].includes(body.kind));
}

function aborted() {
  return new DOMException("the game moved on", "AbortError");
}

const UNANSWERED = { status: 503, body: { error: { code: "device_unanswered" }, computed: "device" } };

// `op` on the device when it can; `remote` on the server otherwise. When the
// device's search ran out and the server cannot be reached either, what the
// device found (or that it found nothing) is the answer: never none at all.
async function local(op, id, version, signal, good, remote) {
  const onlyHere = deviceOnly() || isDeviceGame(id);
  if (onlyHere) await whenReady();
  let mine = null;
  if (engineReady()) await caughtUp();
  if (signal?.aborted) throw aborted();
  if (engineReady() && (await hold({ id, version }))) {
    const res = await ask(op, { id, version }).catch(() => null);
    if (signal?.aborted) throw aborted();
    if (res?.status === 200 && good(res.body)) return res;
    mine = res?.status === 200 ? { ...res, unanswered: true } : UNANSWERED;
    if (onlyHere) return mine;
  } else if (onlyHere) {
    return UNANSWERED;
  }
  if (!mine) return remote();
  try {
    return await remote();
  } catch (e) {
    if (e?.name === "AbortError") throw e;
    return mine;
  }
}

function hint(id, version, signal) {
  const path = `/api/games/${encodeURIComponent(id)}/hint`;
  return local("hint", id, version, signal, answered, () => call("POST", path, { version }, signal));
}

function analysis(id, version) {
  const path = `/api/games/${encodeURIComponent(id)}/analysis`;
  return local("analysis", id, version, null, (b) => b.status !== "unknown", () => call("GET", path));
}

export const api = {
  create: (data) => call("POST", "/api/games", data),
  get: (id) => call("GET", `/api/games/${encodeURIComponent(id)}`),
  act: (id, data) => call("POST", `/api/games/${encodeURIComponent(id)}/actions`, data),
  clock: (id, running) => call("POST", `/api/games/${encodeURIComponent(id)}/clock`, { running }),
  hint,
  analysis,
  deals: (variant, start, count) => call("GET", `/api/deals/${variant}?start=${start}&count=${count}`),
};
