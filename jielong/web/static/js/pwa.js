// Installs the service worker (/sw.js) that keeps the app shell, so the site
// opens at once and the table can show its last position offline. Every page
// loads this; without service workers the site works as before.
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => {
    // a refused registration (private mode, an old browser) changes nothing
  });
}
