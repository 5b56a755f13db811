import { defineConfig } from "vitest/config";

// Browser tests: real Chromium against the real server binary (see e2e/globalSetup.ts).
export default defineConfig({
  test: {
    include: ["e2e/**/*.e2e.ts"],
    environment: "node",
    globalSetup: ["e2e/globalSetup.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
