// The service worker (served as /sw.js, with the three lists below filled in
// by jielong.web.views.pwa). It keeps the app shell: the pages, each as last
// fetched, and the static files of this version, so the site opens at once
// and the table can show its last position offline; and the engine the
// table's worker runs (/engine/), so that the game goes on offline. Nothing
// under /api/ is ever answered from here.
const VERSION = "__VERSION__";
const PAGES = ["__PAGES__"];
const FILES = ["__FILES__"];
const CACHE = `jielong-shell-${VERSION}`;
const SHELL_HEADER = "X-Shell-Version";
// the engine's files are named by their version or digest: kept across shells
const ENGINE_CACHE = "jielong-engine";
// the engine's memory once started, kept by its worker (engine/worker.js)
const SNAPSHOT_CACHE = "jielong-engine-snapshot";
const ENGINE_MANIFEST = "/engine/manifest.json";

// Set when a page arrives made for another shell (the site was upgraded):
// until the new worker takes over, files come from the network, so a new
// page never runs old scripts.
let outdated = false;

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // around the browser's HTTP cache: the files of exactly this version
      await cache.addAll([...PAGES, ...FILES].map((url) => new Request(url, { cache: "reload" })));
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        const kept = [CACHE, ENGINE_CACHE, SNAPSHOT_CACHE];
        if (key.startsWith("jielong-") && !kept.includes(key)) await caches.delete(key);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith("/api/") || url.pathname === "/sw.js") {
    return;
  }
  if (request.mode === "navigate") event.respondWith(page(request, url));
  else if (url.pathname.startsWith("/static/")) event.respondWith(file(request));
  else if (url.pathname.startsWith("/engine/")) event.respondWith(engineFile(request, url));
});

// The engine: its manifest from the network first (it names the current
// files), every other file from the cache once fetched (their names change
// when they do). The cache keeps the current files only.
async function engineFile(request, url) {
  const cache = await caches.open(ENGINE_CACHE);
  if (url.pathname === ENGINE_MANIFEST) {
    try {
      const response = await fetch(request);
      if (response.ok) {
        await cache.put(ENGINE_MANIFEST, response.clone());
        prune(cache, await response.clone().json());
      }
      return response;
    } catch (error) {
      const kept = await cache.match(ENGINE_MANIFEST);
      if (kept) return kept;
      throw error;
    }
  }
  const kept = await cache.match(url.pathname);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(url.pathname, response.clone());
  return response;
}

async function prune(cache, manifest) {
  for (const key of await cache.keys()) {
    const path = new URL(key.url).pathname;
    const current = path === ENGINE_MANIFEST || path === manifest.package || (manifest.runtime && path.startsWith(manifest.runtime));
    if (!current) await cache.delete(key);
  }
}

// Pages: the network first, so a page is always as the server makes it now;
// offline, the page as last fetched (its query aside: the table finds its
// game itself).
async function page(request, url) {
  const cache = await caches.open(CACHE);
  try {
    const response = await fetch(request);
    const made = response.headers.get(SHELL_HEADER);
    if (made && made !== VERSION) {
      outdated = true;
      self.registration.update();
    } else if (response.ok && PAGES.includes(url.pathname)) {
      await cache.put(url.pathname, response.clone());
    }
    return response;
  } catch (error) {
    const kept = await cache.match(url.pathname);
    if (kept) return kept;
    throw error;
  }
}

// Static files: from the shell, which holds exactly this version's files.
async function file(request) {
  if (!outdated) {
    const kept = await caches.match(request, { cacheName: CACHE, ignoreSearch: true });
    if (kept) return kept;
  }
  return fetch(request);
}
