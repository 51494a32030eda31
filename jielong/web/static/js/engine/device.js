// Games on this device. The engine worker holds the game on the table: a
// game the server keeps is mirrored there action by action, so that hints
// need not leave the device and play goes on when the network goes. Actions
// played while the server cannot be reached are kept in IndexedDB with the
// game's record, and sent to the server when it can be reached again; the
// server replays them through its own rules and accepts or refuses them.
import { call } from "../http.js";
import { ask, engineReady } from "./client.js";

const DB = "jielong";
const STORE = "games";
const ALIAS = "jielong.alias.";
const SYNC_PART = 200; // actions per sync request
const held = new Map(); // game id -> the version the worker holds

function openDb() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: "id" });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function tx(mode, work) {
  const db = await openDb();
  return new Promise((resolve, reject) => {
    const t = db.transaction(STORE, mode);
    const result = work(t.objectStore(STORE));
    t.oncomplete = () => resolve(result.result);
    t.onerror = () => reject(t.error);
  });
}

export async function kept(id) {
  try {
    return (await tx("readonly", (s) => s.get(id))) || null;
  } catch {
    return null;
  }
}

// Games kept with nothing left to send: the latest few, for a reload offline.
const KEEP_SETTLED = 20;

async function keep(entry) {
  try {
    await tx("readwrite", (s) => s.put({ ...entry, at: Date.now() }));
  } catch {
    // storage full or refused: the game goes on in memory
  }
}

async function prune() {
  const settled = (await allKept()).filter((e) => !e.pending.length && !isDeviceGame(e.id));
  settled.sort((a, b) => (b.at || 0) - (a.at || 0));
  for (const old of settled.slice(KEEP_SETTLED)) await drop(old.id);
}

async function drop(id) {
  try {
    await tx("readwrite", (s) => s.delete(id));
  } catch {
    // nothing kept, nothing to drop
  }
}

export async function allKept() {
  try {
    return (await tx("readonly", (s) => s.getAll())) || [];
  } catch {
    return [];
  }
}

// The server's id of a game dealt here and since sent to it.
export function renamed(id) {
  if (!isDeviceGame(id)) return id;
  try {
    return localStorage.getItem(ALIAS + id) || id;
  } catch {
    return id;
  }
}

export function isDeviceGame(id) {
  return typeof id === "string" && id.startsWith("device-");
}

// Whether the game has actions the server has not seen yet.
export async function hasPending(id) {
  const entry = await kept(id);
  return Boolean(entry && (entry.pending.length || isDeviceGame(id)));
}

// The worker's copy follows the server's answers one at a time, in order
// (`played`, then `hold` of the position that answer gave).
let chain = Promise.resolve();
export function inTurn(work) {
  chain = chain.then(work).catch(() => {});
  return chain;
}

// Resolves once the worker has caught up with every answer given so far: a
// hint asked of the device waits for it, or the worker would still hold the
// position before the last move (and, offline, could not be told of it).
export function caughtUp() {
  return chain;
}

// The worker holds `state`'s game at its version, from what the device
// kept or from the server's record of it. Returns false when it cannot.
export async function hold(state) {
  if (!engineReady() || !state) return false;
  if (held.get(state.id) === state.version) return true;
  const entry = await kept(state.id);
  let record = entry && entry.record.version === state.version ? entry.record : null;
  if (!record && !isDeviceGame(state.id)) {
    const res = await call("GET", `/api/games/${encodeURIComponent(state.id)}/record`).catch(() => null);
    if (res?.status !== 200 || res.body.version !== state.version) return false;
    record = res.body;
  }
  if (!record) return false;
  const res = await ask("open", record).catch(() => null);
  if (res?.status !== 200) return false;
  held.set(state.id, state.version);
  if (!entry || entry.record.version !== state.version) {
    await keep({ id: state.id, record, base: state.version, pending: [] });
    await prune();
  }
  // which game the engine holds, for the page's tests
  document.documentElement.dataset.engineHeld = state.id;
  return true;
}

// An action the server accepted: the worker plays it too.
export async function played(before, action, after) {
  if (!engineReady() || held.get(before.id) !== before.version) return;
  const res = await ask("act", { id: before.id, version: before.version, action }).catch(() => null);
  if (res?.status !== 200 || res.body.state.version !== after.version) {
    held.delete(before.id);
    return;
  }
  held.set(before.id, after.version);
  await keep({ id: before.id, record: res.body.record, base: after.version, pending: [] });
}

// An action played on the device alone: the answer, as the server's, and
// the action kept to be sent when the server can be reached.
export async function playHere(game, action) {
  if (!engineReady() || !(await hold(game))) return null;
  const res = await ask("act", { id: game.id, version: game.version, action }).catch(() => null);
  if (!res) return null;
  if (res.status !== 200) return res;
  const entry = (await kept(game.id)) || { id: game.id, base: game.version, pending: [] };
  held.set(game.id, res.body.state.version);
  await keep({ ...entry, record: res.body.record, pending: [...entry.pending, action] });
  return { status: 200, body: res.body.state };
}

// A new game dealt on the device (the server cannot be reached).
export async function dealHere(body) {
  const res = await ask("new", body).catch(() => null);
  if (res?.status !== 200) return res;
  const { state, record } = res.body;
  held.set(state.id, state.version);
  await keep({ id: state.id, record, base: null, pending: [], create: body });
  return { status: 201, body: state };
}

// A game kept on the device, opened again in the worker (a reload offline).
export async function reopen(id) {
  const entry = await kept(id);
  if (!entry) return null;
  const res = await ask("open", entry.record).catch(() => null);
  if (res?.status !== 200) return null;
  held.set(id, entry.record.version);
  return res.body;
}

export async function clockHere(game, running) {
  const res = await ask("clock", { id: game.id, running }).catch(() => null);
  return res?.status === 200 ? res.body : null;
}

function createBody(entry) {
  const { record } = entry;
  if (record.daily) return { variant: record.variant, daily: true, date: record.daily };
  return { variant: record.variant, deal: record.deal };
}

// Sends one kept game's actions to the server. The answer: {state} when the
// server has the game as the device played it, {refused, state} when it
// refused it (then the device keeps the server's game), null when the server
// is still away.
export async function syncOne(entry) {
  let id = entry.id;
  let base = entry.base;
  if (isDeviceGame(id)) {
    const made = await call("POST", "/api/games", createBody(entry)).catch(() => null);
    if (!made) return null;
    if (made.status !== 200 && made.status !== 201) return await forget(entry, made);
    id = made.body.id;
    base = made.body.version;
    if (!entry.pending.length) return await settle(entry, made.body);
  }
  if (!entry.pending.length) return { state: null };
  // in parts, well within the server's limits on a sync and on a body
  let res = null;
  for (let at = 0; at < entry.pending.length; at += SYNC_PART) {
    res = await call("POST", `/api/games/${encodeURIComponent(id)}/sync`, {
      version: base,
      actions: entry.pending.slice(at, at + SYNC_PART),
      elapsed_ms: entry.record.elapsed_ms,
    }).catch(() => null);
    if (!res) {
      if (at === 0) return null;
      // away again midway: what the server took stands, the rest waits
      await keep({ ...entry, id, base, pending: entry.pending.slice(at), record: { ...entry.record, id, version: base } });
      if (id !== entry.id) await drop(entry.id);
      return null;
    }
    if (res.status !== 200) {
      if (id !== entry.id) await drop(entry.id);
      return { ...(await forget({ ...entry, id }, res)), from: entry.id };
    }
    base = res.body.version;
  }
  return await settle(entry, res.body);
}

// The server has the game: the worker and the device keep its version.
async function settle(entry, state) {
  await drop(entry.id);
  held.delete(entry.id);
  const record = { ...entry.record, id: state.id, version: state.version };
  await keep({ id: state.id, record, base: state.version, pending: [] });
  const res = await ask("open", record).catch(() => null);
  if (res?.status === 200) held.set(state.id, state.version);
  if (entry.id !== state.id) {
    await ask("forget", { id: entry.id }).catch(() => null);
    try {
      localStorage.setItem(ALIAS + entry.id, state.id);
    } catch {
      // a reload of the device game's address starts afresh
    }
  }
  return { state, from: entry.id };
}

// The server refused the device's actions: the device's copy goes, and the
// game is as the server has it (if it has it at all).
async function forget(entry, res) {
  await drop(entry.id);
  held.delete(entry.id);
  let state = res.body?.state || null;
  if (!state && !isDeviceGame(entry.id)) {
    const now = await call("GET", `/api/games/${encodeURIComponent(entry.id)}`).catch(() => null);
    if (now?.status === 200) state = now.body;
  }
  const message = res.body?.error?.message || null;
  return { refused: true, code: res.body?.error?.code || null, message, state, from: entry.id };
}
