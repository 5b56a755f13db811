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
});
