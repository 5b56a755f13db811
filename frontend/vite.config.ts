/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The Go server serves dist/ and the API on one origin; in development the
// Vite server forwards /api to a server started with `make run`.
export default defineConfig({
  plugins: [react()],
  server: {
    proxy: { "/api": process.env.AUXILIA_URL ?? "http://127.0.0.1:8080" },
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["src/test/setup.ts"],
    css: false,
    restoreMocks: true,
  },
});
