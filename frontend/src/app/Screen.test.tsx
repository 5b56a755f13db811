import { screen as dom } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { renderSignedIn } from "../test/render";
import { lazyScreen, Screen } from "./Screen";

const Page = () => <h1>The page</h1>;

describe("Screen", () => {
  it("shows the page at once when its code has arrived before the first render", async () => {
    const screen = lazyScreen(async () => ({ default: Page }));
    await screen.load();
    renderSignedIn(<Screen screen={screen} />);
    expect(dom.getByRole("heading", { name: "The page" })).toBeInTheDocument(); // no loading step
  });

  it("shows loading until the code arrives, and asks for the screen's data meanwhile", async () => {
    let arrive: (module: { default: typeof Page }) => void = () => {};
    const prefetch = vi.fn(async () => {});
    const screen = lazyScreen(() => new Promise((resolve) => (arrive = resolve)), prefetch);
    renderSignedIn(<Screen screen={screen} />);
    expect(dom.getByRole("status")).toHaveTextContent("Loading");
    expect(prefetch).toHaveBeenCalledOnce();
    arrive({ default: Page });
    expect(await dom.findByRole("heading", { name: "The page" })).toBeInTheDocument();
  });

  it("offers a reload when the code cannot be fetched, and asks again on the next visit", async () => {
    const importPage = vi
      .fn<() => Promise<{ default: typeof Page }>>()
      .mockRejectedValueOnce(new TypeError("Failed to fetch dynamically imported module"))
      .mockResolvedValueOnce({ default: Page });
    const screen = lazyScreen(importPage);
    const first = renderSignedIn(<Screen screen={screen} />);
    expect(await dom.findByRole("alert")).toHaveTextContent("This screen could not be loaded.");
    expect(dom.getByRole("button", { name: "Reload" })).toBeInTheDocument();
    first.unmount();

    renderSignedIn(<Screen screen={screen} />);
    expect(await dom.findByRole("heading", { name: "The page" })).toBeInTheDocument();
    expect(importPage).toHaveBeenCalledTimes(2);
  });
});
