import { describe, expect, it } from "vitest";
import { optionLabel } from "./ConfigFields";

describe("optionLabel", () => {
  it("shows words, not the values the API takes", () => {
    expect(["until_expiry", "always", "allow", "deny", "gvisor", "some_new_mode"].map(optionLabel)).toEqual([
      "Until the instance expires",
      "Always",
      "Allow",
      "Deny",
      "gVisor",
      "Some new mode",
    ]);
  });
});
