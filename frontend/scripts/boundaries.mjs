// The SPA's import boundaries: which folder of src/ may import which.
// docs/architecture.md states the rule in words; `npm run lint` and
// src/boundaries.test.ts enforce it with this module.
//
// The layers, from the bottom up:
//   shared/      plain modules every layer may use; imports nothing else of src/
//   api/         the HTTP client, wire types and shared queries; imports shared/
//   ui/          presentational components; imports api/ (problems, types), shared/
//   session/     who is signed in; imports ui/, api/, shared/
//   features/X/  one screen's worth of code; imports its own feature, session/, ui/, api/, shared/
//   app/         the shell and routes; imports anything but test/
//   src/*.ts(x)  the entry point; imports anything but test/
// test/ helpers import session/, ui/, api/ and shared/; only tests
// (*.test.ts(x)) import test/, or what lies outside src/ (the build's
// scripts). Tests otherwise keep their folder's rule. A feature never
// imports another feature; what two features share moves down a layer.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const below = {
  shared: ["shared"],
  api: ["api", "shared"],
  ui: ["ui", "api", "shared"],
  session: ["session", "ui", "api", "shared"],
  feature: ["session", "ui", "api", "shared"],
  app: ["app", "feature", "session", "ui", "api", "shared"],
  root: ["root", "app", "feature", "session", "ui", "api", "shared"],
  test: ["test", "session", "ui", "api", "shared"],
};

/**
 * The layer of a path relative to src/ ("features/runs/api/sse.ts"), with the
 * feature's name for features; null for a path outside src/.
 */
export function layerOf(path) {
  const parts = path.split("/");
  if (parts[0] === ".." || parts[0] === "") return null;
  if (parts.length === 1) return { layer: "root" };
  if (parts[0] === "features") return { layer: "feature", feature: parts[1] };
  if (parts[0] in below) return { layer: parts[0] };
  return { layer: "unknown" };
}

const isTest = (path) => /\.test\.tsx?$/.test(path);

/** Why `from` may not import `to` (both relative to src/), or null when it may. */
export function forbidden(from, to) {
  const a = layerOf(from);
  const b = layerOf(to);
  if (!a || a.layer === "unknown") return `${from} is in no known folder of src/`;
  if (!b) return isTest(from) ? null : `${to} is outside src/`;
  if (b.layer === "unknown") return `${to} is in no known folder of src/`;
  if (b.layer === "test") return isTest(from) || a.layer === "test" ? null : "only tests import test/";
  if (a.layer === "feature" && b.layer === "feature") {
    return a.feature === b.feature ? null : `features/${a.feature} imports features/${b.feature}`;
  }
  if (a.layer === b.layer || below[a.layer].includes(b.layer)) return null;
  return `${a.layer === "feature" ? "features" : a.layer}/ may not import ${b.layer === "feature" ? "features" : b.layer}/`;
}

/** The relative module specifiers a source file imports, re-exports or loads lazily. */
export function importsOf(text) {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.map((f) => f.fileName).filter((name) => name.startsWith("."));
}

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** Every forbidden import under srcDir: { from, to, why }, paths relative to srcDir. */
export function violations(srcDir) {
  const root = resolve(srcDir);
  const rel = (path) => relative(root, path).split(sep).join("/");
  const found = [];
  for (const file of sources(root)) {
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      const from = rel(file);
      const to = rel(resolve(dirname(file), spec));
      const why = forbidden(from, to);
      if (why) found.push({ from, to: spec, why });
    }
  }
  return found;
}

const self = fileURLToPath(import.meta.url);
if (process.argv[1] && resolve(process.argv[1]) === self) {
  const srcDir = process.argv[2] ?? join(dirname(self), "..", "src");
  const found = violations(srcDir);
  for (const v of found) console.error(`${v.from}: imports "${v.to}": ${v.why}`);
  if (found.length > 0) {
    console.error(`\n${found.length} import(s) cross the SPA's boundaries (see docs/architecture.md).`);
    process.exit(1);
  }
  console.log("Import boundaries hold.");
}
