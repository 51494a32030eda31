// The engine worker: the project's own Python package (cards, deals, rules,
// solvers, hints) run by Pyodide, off the page's thread. Requests and answers
// are JSON text handed to jielong.play.worker.handle; this file only carries
// them. It knows no rules.
let handle = null;

async function boot() {
  const started = performance.now();
  const manifest = await (await fetch("/engine/manifest.json")).json();
  if (!manifest.available) throw new Error("the site serves no engine runtime");
  const { loadPyodide } = await import(`${manifest.runtime}pyodide.mjs`);
  const py = await loadPyodide({ indexURL: manifest.runtime, stdout: () => {}, stderr: () => {} });
  const runtimeMs = performance.now() - started;
  const zip = await (await fetch(manifest.package)).arrayBuffer();
  py.FS.writeFile("/jielong.zip", new Uint8Array(zip));
  py.runPython(
    [
      "import sys",
      "sys.path.insert(0, '/jielong.zip')",
      "from jielong.web.i18n import message",
      "from jielong.play import worker",
      "worker.ENGINE.words = message",
    ].join("\n"),
  );
  handle = py.pyimport("jielong.play.worker").handle;
  // for the benchmarks, which read the runtime's own figures
  self.pyodide = py;
  return { ms: Math.round(performance.now() - started), runtimeMs: Math.round(runtimeMs) };
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
