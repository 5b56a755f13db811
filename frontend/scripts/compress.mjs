// Writes name.br and name.gz beside each compressible file of the build, so
// the Go server sends them as they are to clients that accept them (api/spa.go).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const compressible = /\.(js|mjs|css|html|svg|json|txt|map|wasm)$/;
const minBytes = 512; // smaller files gain less than the headers cost

export function compressDir(dir) {
  let before = 0;
  let after = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !compressible.test(entry.name)) continue;
    const file = join(entry.parentPath, entry.name);
    const raw = readFileSync(file);
    if (raw.length < minBytes) continue;
    const br = brotliCompressSync(raw, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: raw.length,
      },
    });
    const gz = gzipSync(raw, { level: constants.Z_BEST_COMPRESSION });
    // A form no smaller than the original is never worth sending.
    if (br.length < raw.length) writeFileSync(file + ".br", br);
    if (gz.length < raw.length) writeFileSync(file + ".gz", gz);
    before += raw.length;
    after += Math.min(br.length, raw.length);
  }
  console.log(`Compressed: ${(before / 1000).toFixed(1)} kB → ${(after / 1000).toFixed(1)} kB with brotli`);
}
