import { describe, expect, it } from "vitest";
import { placeFieldErrors } from "./fieldErrors";

describe("placeFieldErrors", () => {
  const keys = ["name", "url", "config.timeout", "config.volume_mounts"];

  it("places dotted paths on their field, naming list lines from 1", () => {
    const placed = placeFieldErrors(
      [
        { field: "name", message: "is required" },
        { field: "config.timeout", message: "must be at least 1" },
        { field: "config.volume_mounts.2", message: "host path /etc may not be mounted" },
        { field: "config.volume_mounts.0", message: "must be host_path:sandbox_path" },
      ],
      keys,
    );
    expect(placed.byField).toEqual({
      name: ["is required"],
      "config.timeout": ["must be at least 1"],
      "config.volume_mounts": ["Line 3: host path /etc may not be mounted", "Line 1: must be host_path:sandbox_path"],
    });
    expect(placed.unplaced).toEqual([]);
  });

  it("keeps fields the form does not show for above the buttons", () => {
    const placed = placeFieldErrors([{ field: "config.shiny", message: "is not a known setting" }, { field: "", message: "bad" }], keys);
    expect(placed.unplaced).toEqual(["config.shiny: is not a known setting", "bad"]);
  });

  it("names an item by what was sent, quoted, where it may share its line with others", () => {
    const sent = (key: string) => (key === "config.default_packages" ? ["pandas==2.2.*", "matplotlib", "bad pkg!"] : undefined);
    const placed = placeFieldErrors(
      [
        { field: "config.default_packages.2", message: "is not a pip requirement specifier" },
        { field: "config.volume_mounts.1", message: "host path /etc may not be mounted" },
      ],
      [...keys, "config.default_packages"],
      sent,
    );
    expect(placed.byField["config.default_packages"]).toEqual(["“bad pkg!”: is not a pip requirement specifier"]);
    // Without the item sent, the line it stands on.
    expect(placed.byField["config.volume_mounts"]).toEqual(["Line 2: host path /etc may not be mounted"]);
  });
});
