// Fails when src/api/schema.gen.ts is not what ../openapi.yaml generates now,
// so a spec change cannot land without the types the SPA compiles against.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const committed = "src/api/schema.gen.ts";
const dir = mkdtempSync(join(tmpdir(), "auxilia-gen-"));
const fresh = join(dir, "schema.gen.ts");
try {
  execFileSync(
    process.execPath,
    ["node_modules/openapi-typescript/bin/cli.js", "../openapi.yaml", "--default-non-nullable=false", "-o", fresh],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  if (readFileSync(fresh, "utf8") !== readFileSync(committed, "utf8")) {
    console.error(`${committed} is stale: run \`npm run gen\` and commit the result.`);
    process.exit(1);
  }
  console.log(`${committed} matches ../openapi.yaml`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
