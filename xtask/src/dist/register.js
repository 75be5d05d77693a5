
// Offline after the first visit (`cargo xtask dist`; see sw.js): the service
// worker keeps this version; a newer one, once installed, is announced to
// the page (app/offline.rs) and taken on the next reload.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker
    .register('__BASE__sw.js', { scope: '__BASE__' })
    .then((registration) => {
      const announce = () => {
        if (registration.waiting && navigator.serviceWorker.controller) {
          dispatchEvent(new Event('codegraph-insights:update-ready'));
        }
      };
      announce();
      registration.addEventListener('updatefound', () => {
        const next = registration.installing;
        next?.addEventListener('statechange', () => {
          if (next.state === 'installed') announce();
        });
      });
      setInterval(() => registration.update().catch(() => {}), 30 * 60 * 1000);
    })
    .catch((e) => console.warn(`codegraph insights: no offline copy of this page (${e.message})`));
}
