// Runs after `vite build`: puts back dist/.gitkeep (the Go embed needs the
// folder to exist in a fresh clone) and reports the gzipped size of the
// JavaScript that index.html loads before anything else, failing over budget;
// then writes the compressed forms the server sends.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { compressDir } from "./compress.mjs";

const dist = "dist";
const budgetBytes = 250 * 1000;

writeFileSync(join(dist, ".gitkeep"), "");

const html = readFileSync(join(dist, "index.html"), "utf8");
// The entry script and every chunk it asks to preload are fetched at first load.
const urls = [
  ...html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"/g),
  ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g),
].map((m) => m[1]);

let total = 0;
for (const url of urls) {
  const size = gzipSync(readFileSync(join(dist, url.replace(/^\//, "")))).length;
  total += size;
  console.log(`  ${url}  ${(size / 1000).toFixed(1)} kB gzip`);
}
console.log(`Initial JavaScript: ${(total / 1000).toFixed(1)} kB gzip (budget ${budgetBytes / 1000} kB)`);
if (urls.length === 0) {
  console.error("index.html loads no module script: the build looks broken.");
  process.exit(1);
}
if (total >= budgetBytes) {
  console.error("Over budget: split routes or dialogs with React.lazy.");
  process.exit(1);
}

compressDir(dist);
