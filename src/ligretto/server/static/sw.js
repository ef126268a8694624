// The service worker of the installable web app (the score keeper works offline): it
// keeps the app's own files (APP_FILES: the page, its styles, every module, every
// language, the rule options of GET /api/presets) and answers from them when the network
// does not.  Network first: a server with a newer client is always believed when it answers.
// Nothing else of the API passes through here: entries wait in the page (keepapi.js).

const CACHE = "ligretto-app-1";
const APP_FILES = [
  "/",
  "/index.html",
  "/app.css",
  "/keeper.css",
  "/manifest.json",
  "/icon.svg",
  "/api/presets",
  "/i18n/de.json",
  "/i18n/en.json",
  "/i18n/es.json",
  "/i18n/fi.json",
  "/i18n/fr.json",
  "/i18n/it.json",
  "/i18n/pt.json",
  "/js/aid.js",
  "/js/aims.js",
  "/js/apicall.js",
  "/js/board.js",
  "/js/cards.js",
  "/js/chart.js",
  "/js/connection.js",
  "/js/controls.js",
  "/js/dom.js",
  "/js/history.js",
  "/js/invite.js",
  "/js/i18n.js",
  "/js/keepapi.js",
  "/js/keepentry.js",
  "/js/keepseats.js",
  "/js/keepsheet.js",
  "/js/keepstart.js",
  "/js/keepviews.js",
  "/js/keys.js",
  "/js/leaderboard.js",
  "/js/lobby.js",
  "/js/main.js",
  "/js/mirror.js",
  "/js/profile.js",
  "/js/profilepage.js",
  "/js/queue.js",
  "/js/races.js",
  "/js/reactions.js",
  "/js/replay.js",
  "/js/replaytrack.js",
  "/js/rules.js",
  "/js/rulespage.js",
  "/js/session.js",
  "/js/sheet.js",
  "/js/sound.js",
  "/js/storage.js",
  "/js/tableview.js",
  "/js/tournament.js",
  "/js/tutorial.js",
  "/js/waitingroom.js",
];
const KEPT = new Set(APP_FILES);

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(APP_FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin || !KEPT.has(url.pathname)) return;
  event.respondWith(
    fetch(event.request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(url.pathname, copy));
        }
        return response;
      })
      .catch(() => caches.match(url.pathname).then((kept) => kept || Response.error())),
  );
});
