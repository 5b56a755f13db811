import { describe, expect, it } from "vitest";
import type { Provider } from "../../../api/types";
import { providers } from "../../../test/render";
import { createBody, mergePatch, missingRequired, newDraft } from "./draft";

const provider = (name: string) => providers.find((p) => p.name === name) as Provider;

describe("sandbox form model", () => {
  it("starts a new sandbox from the catalogue's defaults", () => {
    const draft = newDraft(provider("daytona"));
    expect(draft.url).toBe("https://app.daytona.io/api");
    expect(draft.config).toEqual({ target: "us", snapshot: "", auto_stop_interval: "15", default_packages: [], timeout: "1800" });
  });

  it("sends numbers as numbers and leaves out an emptied one (its default applies)", () => {
    const draft = { ...newDraft(provider("local")), name: " Local ", config: { ...newDraft(provider("local")).config, memory_mb: "" } };
    const body = createBody(provider("local"), draft);
    expect(body).toEqual({
      name: "Local",
      description: "",
      provider: "local",
      config: { network: false, max_processes: 256, disk_mb: 1024, default_packages: [], timeout: 1800 },
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

  it("leaves the warm pool out of the form, so an edit keeps the saved one", () => {
    expect(Object.keys(newDraft(provider("local")).config)).not.toContain("pool");
    const saved = newDraft(provider("local"));
    expect(mergePatch(provider("local"), saved, { ...saved, name: "Renamed" })).toEqual({ name: "Renamed" });
  });

  it("counts a stored secret as filled unless it is being cleared", () => {
    const draft = { ...newDraft(provider("cloudrun")), name: "CR", url: "https://gw" };
    expect(missingRequired(provider("cloudrun"), draft)).toEqual(["Gateway secret"]);
    expect(missingRequired(provider("cloudrun"), draft, { is_set: true, last4: "abcd", length: 20 })).toEqual([]);
  });
});
