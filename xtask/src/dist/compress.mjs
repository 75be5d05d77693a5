// `cargo xtask dist` (xtask/src/dist.rs): writes `.gz` (level 9) and `.br`
// (quality 11) beside every compressible file of 1 KiB or more under the
// folder given, with node's own zlib (nothing to install).
import { readdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { join, extname } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.wasm', '.css', '.json', '.jsonl', '.svg', '.txt', '.md']);

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const info = statSync(path);
    if (info.isDirectory()) walk(path);
    else if (COMPRESSIBLE.has(extname(name)) && info.size >= 1024) {
      const bytes = readFileSync(path);
      writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
      writeFileSync(
        `${path}.br`,
        brotliCompressSync(bytes, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length },
        }),
      );
    }
  }
}

const [dir] = process.argv.slice(2);
if (!dir) throw new Error('usage: node compress.mjs DIR');
walk(dir);
