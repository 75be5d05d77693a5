// A static host for a copy of the dist folder, owned by one test: it can be
// stopped (the network gone) and its files changed (a new version
// published) without touching the folder the other tests use.
import { createServer } from 'node:http';
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.jsonl': 'application/x-ndjson',
  '.zip': 'application/zip',
  '.md': 'text/markdown; charset=utf-8',
};

/// The `Name: value` lines of a `_headers` file (every pattern's).
function headersOf(text) {
  return text
    .split('\n')
    .filter((l) => /^\s+\S/.test(l))
    .map((l) => l.trim())
    .map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()]);
}

/**
 * Copies `dir` (a dist folder built for `base`) and serves the copy under
 * `base` on a free loopback port, with its `_headers` on every answer and
 * `Cache-Control: no-cache` as the tests' own server sends.
 */
export async function host(dir, base) {
  const root = mkdtempSync(join(tmpdir(), 'e2e-host-'));
  cpSync(dir, root, { recursive: true });
  const headers = headersOf(readFileSync(join(root, '_headers'), 'utf8'));
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (!path.startsWith(base)) {
      res.writeHead(404).end();
      return;
    }
    let file = normalize(join(root, path.slice(base.length)));
    if (!file.startsWith(root)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const body = readFileSync(file);
      res.writeHead(200, [...headers, ['Content-Type', TYPES[extname(file)] ?? 'application/octet-stream'], ['Cache-Control', 'no-cache']]);
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}${base}`;
  return {
    url,
    root,
    /** The network gone: the port closed, every connection dropped. */
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
    async remove() {
      if (server.listening) await this.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
