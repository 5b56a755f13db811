import { afterEach, describe, expect, it } from "vitest";
import { resetSignInFailure, takeSignInFailure } from "./signInFailure";

afterEach(() => {
  resetSignInFailure();
  window.history.replaceState(null, "", "/");
});

describe("takeSignInFailure", () => {
  it("words the server's reason once, and takes it out of the address", () => {
    window.history.replaceState(null, "", "/?sign_in_failed=no_workspace&keep=1#top");
    expect(takeSignInFailure()).toMatch(/none of your groups gives you a workspace here/);
    expect(window.location.search).toBe("?keep=1");
    expect(window.location.hash).toBe("#top");
    expect(takeSignInFailure()).toMatch(/none of your groups/);
  });

  it("never shows words the address brought", () => {
    window.history.replaceState(null, "", "/?sign_in_failed=" + encodeURIComponent("Call 555-0100 to unlock your account"));
    const said = takeSignInFailure();
    expect(said).toMatch(/^The sign-in with the identity provider failed/);
    expect(said).not.toContain("555");
    resetSignInFailure();
    window.history.replaceState(null, "", "/?sign_in_failed=constructor");
    expect(takeSignInFailure()).toMatch(/^The sign-in with the identity provider failed/);
  });

  it("is nothing without a reason", () => {
    expect(takeSignInFailure()).toBeNull();
  });
});
