import { describe, expect, it } from "vitest";
import type { Provider } from "../../../api/types";
import { providers } from "../../../test/render";
import { createBody, mergePatch, missingRequired, newDraft } from "./draft";

const provider = (name: string) => providers.find((p) => p.name === name) as Provider;

describe("sandbox form model", () => {
  it("starts a new sandbox from the catalogue's defaults", () => {
    const draft = newDraft(provider("daytona"));
    expect(draft.url).toBe("https://app.daytona.io/api");
    expect(draft.config).toEqual({
      target: "us",
      snapshot: "",
      auto_stop_interval: "15",
      auto_archive_interval: "10080",
      env: [],
      default_packages: [],
      timeout: "1800",
      network: { default: "allow", allow: [], deny: [] },
      resources: { cpu: "0", memory_mb: "0", disk_mb: "0" },
      idle_minutes: "0",
      keep_files: "until_expiry",
      max_kept_days: "7",
      pool: { size: "0", max_idle_minutes: "60" },
    });
  });

  it("sends numbers as numbers and leaves out an emptied one (its default applies)", () => {
    const fresh = newDraft(provider("local"));
    const draft = { ...fresh, name: " Local ", config: { ...fresh.config, resources: { cpu: "0", memory_mb: "", disk_mb: "1024" } } };
    const body = createBody(provider("local"), draft);
    expect(body).toEqual({
      name: "Local",
      description: "",
      provider: "local",
      config: {
        max_processes: 256,
        isolation: "bubblewrap",
        default_packages: [],
        timeout: 1800,
        network: { default: "deny", allow: [], deny: [] },
        resources: { cpu: 0, disk_mb: 1024 },
        idle_minutes: 0,
        keep_files: "until_expiry",
        max_kept_days: 7,
        pool: { size: 0, max_idle_minutes: 60 },
      },
    });
  });

  it("patches only what changed, resetting an emptied number with null and keeping a blank secret", () => {
    const saved = { ...newDraft(provider("opensandbox")), name: "Box", url: "http://a:1" };
    const edited = {
      ...saved,
      url: "http://b:2",
      config: { ...saved.config, timeout: "", volume_mounts: ["/srv:/srv"] },
    };
    expect(mergePatch(provider("opensandbox"), saved, edited)).toEqual({
      url: "http://b:2",
      config: { timeout: null, volume_mounts: ["/srv:/srv"] },
    });
    expect(mergePatch(provider("opensandbox"), saved, { ...saved, secret: "new-key" })).toEqual({ secret: "new-key" });
  });

  it("patches an object by its changed fields, and an env by its changed names, a removed one null", () => {
    const saved = newDraft(provider("daytona"));
    saved.config = { ...saved.config, env: ["KEEP=1", "GONE=2"] };
    const edited = {
      ...saved,
      config: {
        ...saved.config,
        env: ["KEEP=1", "NEW=a=b"],
        network: { default: "deny", allow: ["198.51.100.0/24"], deny: [] },
      },
    };
    expect(mergePatch(provider("daytona"), saved, edited)).toEqual({
      config: { env: { KEEP: "1", NEW: "a=b", GONE: null }, network: { default: "deny", allow: ["198.51.100.0/24"] } },
    });
  });

  it("counts a stored secret as filled unless it is being cleared", () => {
    const draft = { ...newDraft(provider("cloudrun")), name: "CR", url: "https://gw" };
    expect(missingRequired(provider("cloudrun"), draft)).toEqual(["Gateway secret"]);
    expect(missingRequired(provider("cloudrun"), draft, { is_set: true, last4: "abcd", length: 20 })).toEqual([]);
  });
});
