// Builds and starts the real server binary, with the SPA embedded, for the browser tests.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

export const frontendDir = resolve(import.meta.dirname, "..");
export const repoRoot = resolve(frontendDir, "..");

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(command, args, { cwd, stdio: "inherit", env });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status})`);
}

export function buildSpa() {
  // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
  run("npm", ["run", "build"], frontendDir, { ...process.env, NODE_ENV: "production" });
}

/** Compiles cmd/auxilia into a fresh folder; the SPA in frontend/dist is embedded. */
export function buildServer(): { binary: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "auxilia-e2e-bin-"));
  const binary = join(dir, "auxilia");
  run("go", ["build", "-o", binary, "./cmd/auxilia"], repoRoot);
  return { binary, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RunningServer {
  url: string;
  token: string;
  /** An admin token of the workspace called name (made when missing), from the binary's `tokens create`. */
  createToken: (workspace: string) => string;
  /** Sets the quotas of the workspace called name, as the operator does with `auxilia quotas set`. */
  setQuotas: (workspace: string, ...flags: string[]) => void;
  stop: () => Promise<void>;
}

/** Starts the binary on a free port with a fresh embedded database and a known admin token. */
export async function startServer(binary: string, token: string, settings: NodeJS.ProcessEnv = {}): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "auxilia-e2e-data-"));
  const env = { ...process.env, AUXILIA_DATA_DIR: dataDir, DATABASE_URL: "", AUXILIA_SECRET_KEYS: "" };
  const child: ChildProcess = spawn(binary, ["serve"], {
    env: { ...env, AUXILIA_LISTEN: "127.0.0.1:0", AUXILIA_BOOTSTRAP_TOKEN: token, AUXILIA_LOG_LEVEL: "info", ...settings },
    stdio: ["ignore", "ignore", "pipe"],
  });

  const stderrTail: string[] = [];
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not listen in 30 s:\n${stderrTail.join("\n")}`)), 30_000);
    createInterface({ input: child.stderr! }).on("line", (line) => {
      stderrTail.push(line);
      if (stderrTail.length > 50) stderrTail.shift();
      try {
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg === "listening" && entry.url) {
          clearTimeout(timer);
          resolveUrl(entry.url);
        }
      } catch {
        // Not a JSON log line; keep reading.
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${stderrTail.join("\n")}`));
    });
  });

  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const createToken = (workspace: string) => {
    const made = spawnSync(binary, ["tokens", "create", "--workspace", workspace, "--role", "admin", "--name", "e2e"], { env, encoding: "utf8" });
    if (made.status !== 0) throw new Error(`auxilia tokens create failed (exit ${made.status}): ${made.stderr}`);
    return made.stdout.trim();
  };
  const setQuotas = (workspace: string, ...flags: string[]) => {
    const set = spawnSync(binary, ["quotas", "set", "--workspace", workspace, ...flags], { env, encoding: "utf8" });
    if (set.status !== 0) throw new Error(`auxilia quotas set failed (exit ${set.status}): ${set.stderr}`);
  };
  return { url, token, createToken, setQuotas, stop };
}
