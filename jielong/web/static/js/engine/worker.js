// The engine worker: the project's own Python package (cards, deals, rules,
// solvers, hints) run by Pyodide, off the page's thread. Requests and answers
// are JSON text handed to jielong.play.worker.handle; this file only carries
// them. It knows no rules.
let handle = null;

// The runtime's memory once the engine is imported, kept on the device
// (Pyodide's memory snapshot): a later start restores it instead of starting
// Python and importing the engine again, several times faster. It is named
// by the runtime's version and the package's digest, so a new engine makes
// a new one, and dropped when it cannot be read or restored.
const SNAPSHOTS = "jielong-engine-snapshot";

function snapshotKey(manifest) {
  return new URL(`/engine/snapshot/${manifest.version}/${manifest.digest}`, self.location.href).href;
}

async function readSnapshot(key) {
  try {
    const cache = await caches.open(SNAPSHOTS);
    const kept = await cache.match(key);
    if (!kept) return null;
    const raw = kept.body.pipeThrough(new DecompressionStream("gzip"));
    return new Uint8Array(await new Response(raw).arrayBuffer());
  } catch {
    return null;
  }
}

async function keepSnapshot(key, memory) {
  try {
    const cache = await caches.open(SNAPSHOTS);
    for (const old of await cache.keys()) if (old.url !== key) await cache.delete(old);
    const packed = new Blob([memory]).stream().pipeThrough(new CompressionStream("gzip"));
    await cache.put(key, new Response(packed));
  } catch {
    // no room, or no caches here: the next start imports the engine again
  }
}

async function dropSnapshot() {
  try {
    await caches.delete(SNAPSHOTS);
  } catch {
    // nothing kept
  }
}

async function start(manifest, snapshot) {
  const { loadPyodide } = await import(`${manifest.runtime}pyodide.mjs`);
  const options = { indexURL: manifest.runtime, stdout: () => {}, stderr: () => {} };
  if (snapshot) options._loadSnapshot = snapshot;
  else options._makeSnapshot = true;
  return loadPyodide(options);
}

async function boot() {
  const started = performance.now();
  const manifest = await (await fetch("/engine/manifest.json")).json();
  if (!manifest.available) throw new Error("the site serves no engine runtime");
  const key = snapshotKey(manifest);
  let snapshot = await readSnapshot(key);
  let py;
  try {
    py = await start(manifest, snapshot);
  } catch (e) {
    if (!snapshot) throw e;
    await dropSnapshot();
    snapshot = null;
    py = await start(manifest, null);
  }
  const runtimeMs = performance.now() - started;
  // the package's later imports read the archive: it is on the device's file
  // system, which no snapshot holds
  const zip = await (await fetch(manifest.package)).arrayBuffer();
  py.FS.writeFile("/jielong.zip", new Uint8Array(zip));
  if (snapshot) {
    // a restored memory has the random state it was kept with
    py.runPython("import random\nrandom.seed()");
  } else {
    py.runPython(
      [
        "import sys",
        "sys.path.insert(0, '/jielong.zip')",
        "from jielong.web.i18n import message",
        "from jielong.play import worker",
        "worker.ENGINE.words = message",
      ].join("\n"),
    );
    // kept before any game is dealt, so a restored engine holds none
    keepSnapshot(key, py.makeMemorySnapshot());
  }
  handle = py.pyimport("jielong.play.worker").handle;
  // for the benchmarks, which read the runtime's own figures
  self.pyodide = py;
  return {
    ms: Math.round(performance.now() - started),
    runtimeMs: Math.round(runtimeMs),
    snapshot: snapshot ? "restored" : "made",
  };
}

const booting = boot();
booting.then(
  (took) => postMessage({ ready: true, ...took }),
  (e) => postMessage({ ready: false, failed: String(e?.message || e) }),
);

self.onmessage = async ({ data }) => {
  const { id, op, body } = data;
  try {
    await booting;
  } catch (e) {
    postMessage({ id, failed: String(e?.message || e) });
    return;
  }
  const started = performance.now();
  try {
    const answer = JSON.parse(handle(op, JSON.stringify(body)));
    postMessage({ id, answer, ms: performance.now() - started });
  } catch (e) {
    postMessage({ id, failed: String(e?.message || e) });
  }
};
