import { waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { fakeApi } from "../test/fakeApi";
import { providers, renderSignedIn } from "../test/render";
import { ProviderIcon } from "./ProviderIcon";

describe("ProviderIcon", () => {
  it("shows the icon the catalogue serves for the provider, as an image", async () => {
    fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    const daytona = providers.find((p) => p.name === "daytona")!;
    const { container } = renderSignedIn(<ProviderIcon provider="daytona" />);
    await waitFor(() => expect(container.querySelector("img")).toHaveAttribute("src", daytona.icon));
    expect(daytona.icon).toMatch(/^data:image\/svg\+xml;base64,/);
  });

  it("shows a generic icon for a provider the catalogue does not list", async () => {
    const api = fakeApi({ "GET /api/v1/providers": { body: { items: providers } } });
    const { container } = renderSignedIn(<ProviderIcon provider="nomad" />);
    await waitFor(() => expect(api.callsTo("GET", "/api/v1/providers")).toHaveLength(1));
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("svg")).not.toBeNull();
  });
});
