import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { forbidden, importsOf, violations } from "../scripts/boundaries.mjs";

describe("the SPA's import boundaries (docs/architecture.md)", () => {
  it("hold for every file under src/", () => {
    expect(violations(resolve(import.meta.dirname))).toEqual([]);
  });

  it("let a feature use its own code and the layers below it", () => {
    for (const to of ["features/runs/paths.ts", "session/me.ts", "ui/Button.tsx", "api/client.ts", "shared/tokenStore.ts"]) {
      expect(forbidden("features/runs/api/sse.ts", to), to).toBeNull();
    }
  });

  it("keep features apart, and below the app", () => {
    expect(forbidden("features/agents/AgentsPage.tsx", "features/sandboxes/SandboxRow.tsx")).toBe("features/agents imports features/sandboxes");
    expect(forbidden("features/agents/AgentsPage.tsx", "app/Screen.tsx")).toBe("features/ may not import app/");
    expect(forbidden("app/routes.tsx", "features/agents/AgentsPage.tsx")).toBeNull();
  });

  it("keep the API client and the shared modules free of the session, the screens and the ui", () => {
    expect(forbidden("api/client.ts", "session/me.ts")).toBe("api/ may not import session/");
    expect(forbidden("api/client.ts", "ui/Button.tsx")).toBe("api/ may not import ui/");
    expect(forbidden("shared/tokenStore.ts", "api/client.ts")).toBe("shared/ may not import api/");
    expect(forbidden("ui/Button.tsx", "session/SessionContext.ts")).toBe("ui/ may not import session/");
    expect(forbidden("session/me.ts", "features/runs/paths.ts")).toBe("session/ may not import features/");
  });

  it("let only tests use the test helpers, and the helpers stay out of the screens", () => {
    expect(forbidden("ui/Dialog.test.tsx", "test/render.tsx")).toBeNull();
    expect(forbidden("ui/Dialog.tsx", "test/render.tsx")).toBe("only tests import test/");
    expect(forbidden("test/render.tsx", "features/runs/paths.ts")).toBe("test/ may not import features/");
  });

  it("refuse a path outside src/, but to tests, and a folder the rule does not name", () => {
    expect(forbidden("api/client.ts", "../scripts/boundaries.mjs")).toBe("../scripts/boundaries.mjs is outside src/");
    expect(forbidden("boundaries.test.ts", "../scripts/boundaries.mjs")).toBeNull();
    expect(forbidden("widgets/Thing.tsx", "ui/Button.tsx")).toBe("widgets/Thing.tsx is in no known folder of src/");
  });

  it("read every kind of import: values, types, re-exports, side effects and lazy chunks", () => {
    const text = [
      'import { a } from "./a";',
      'import type { B } from "../b";',
      'export { c } from "./c";',
      'import "./d.css";',
      'const e = () => import("../e");',
      'import { useState } from "react";',
    ].join("\n");
    expect(importsOf(text)).toEqual(["./a", "../b", "./c", "./d.css", "../e"]);
  });
});
