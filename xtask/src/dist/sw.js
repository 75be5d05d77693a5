// The hosted page's service worker, written by `cargo xtask dist` (the
// template is xtask/src/dist/sw.js): it keeps one version of the page — its
// shell, both wasm modules and the demo — so that the page, `?demo` and
// loading a model from this computer work with the network off after the
// first visit.
//
// * A version is the set of files below with their content (VERSION is a
//   hash of both), cached whole under its own name when the worker installs.
//   Each file is revalidated with the host (`cache: 'no-cache'`): what the
//   first visit just downloaded is not downloaded again, and a stale copy
//   in the HTTP cache never enters a version.
// * The browser checks this file on every visit (and the page every 30
//   minutes); a changed file installs the next version beside the running
//   one. Nothing changes under an open page: the next version is announced
//   (the page's start-up script fires `codegraph-insights:update-ready`) and
//   taken on the next reload, when no other tab still runs this one.
// * Only GET requests for the files below are answered from the cache;
//   everything else (a model served beside the page, the provider's API)
//   goes to the network untouched.
const VERSION = '__VERSION__';
const BASE = '__BASE__';
const FILES = __FILES__;
const PREFIX = 'codegraph-insights-';
const CACHE = PREFIX + VERSION;
const PAGE = new Set(['', 'index.html']);

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE).then((cache) => cache.addAll(FILES.map((f) => new Request(BASE + f, { cache: 'no-cache' })))),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const key of await caches.keys()) {
        if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
      }
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('message', (event) => {
  if (event.data === 'take-over') self.skipWaiting();
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !url.pathname.startsWith(BASE)) return;
  const path = url.pathname.slice(BASE.length);
  if (request.mode === 'navigate' && PAGE.has(path)) {
    event.respondWith(page(request));
  } else if (FILES.includes(path)) {
    event.respondWith(cached(request, path));
  }
});

/// The page itself; on a reload with a newer version waiting and no other
/// tab on this one, the newer version takes over and the page loads again.
async function page(request) {
  const waiting = self.registration.waiting;
  if (waiting && (await self.clients.matchAll({ type: 'window' })).length < 2) {
    waiting.postMessage('take-over');
    return new Response('', { headers: { Refresh: '0' } });
  }
  return cached(request, '');
}

async function cached(request, path) {
  const hit = await caches.open(CACHE).then((cache) => cache.match(BASE + path));
  return hit ?? fetch(request);
}
