import { act, render, screen } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { lazyComponent, loadWhenIdle, useLazyComponent, type LazyComponent } from "./lazy";

const Greeting = ({ name }: { name: string }) => <p>Hello {name}</p>;

function Opener({ lazy }: { lazy: LazyComponent<{ name: string }> }) {
  const [open, setOpen] = useState(false);
  const { Component, error } = useLazyComponent(lazy, open);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Open
      </button>
      {open && Component && <Component name="Ada" />}
      {open && error ? <p role="alert">failed</p> : null}
    </>
  );
}

describe("lazyComponent", () => {
  it("asks for its chunk only once wanted, and then only once", async () => {
    const importGreeting = vi.fn(async () => Greeting);
    const lazy = lazyComponent(importGreeting);
    render(<Opener lazy={lazy} />);
    expect(importGreeting).not.toHaveBeenCalled();
    act(() => screen.getByRole("button", { name: "Open" }).click());
    expect(await screen.findByText("Hello Ada")).toBeInTheDocument();
    await lazy.load();
    expect(importGreeting).toHaveBeenCalledOnce();
  });

  it("says so when the chunk cannot be fetched, and asks again when next wanted", async () => {
    const importGreeting = vi.fn<() => Promise<typeof Greeting>>().mockRejectedValueOnce(new TypeError("Failed to fetch")).mockResolvedValueOnce(Greeting);
    const lazy = lazyComponent(importGreeting);
    const first = render(<Opener lazy={lazy} />);
    act(() => screen.getByRole("button", { name: "Open" }).click());
    expect(await screen.findByRole("alert")).toHaveTextContent("failed");
    first.unmount();
    render(<Opener lazy={lazy} />);
    act(() => screen.getByRole("button", { name: "Open" }).click());
    expect(await screen.findByText("Hello Ada")).toBeInTheDocument();
    expect(importGreeting).toHaveBeenCalledTimes(2);
  });

  it("loads chunks when the browser is idle, unless called off first", async () => {
    const first = vi.fn(async () => Greeting);
    const second = vi.fn(async () => Greeting);
    loadWhenIdle(lazyComponent(first));
    const cancel = loadWhenIdle(lazyComponent(second));
    cancel();
    await vi.waitFor(() => expect(first).toHaveBeenCalledOnce());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(second).not.toHaveBeenCalled();
  });
});
