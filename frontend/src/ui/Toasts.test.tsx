import { act, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ToastProvider, useToast } from "./Toasts";

function Saver() {
  const notify = useToast();
  return (
    <button type="button" onClick={() => notify("Saved Team box.")}>
      Save
    </button>
  );
}

describe("ToastProvider", () => {
  afterEach(() => vi.useRealTimers());

  it("says a save went through in a polite region, and lets it go after a few seconds", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    render(
      <ToastProvider>
        <Saver />
      </ToastProvider>,
    );
    await user.click(screen.getByRole("button", { name: "Save" }));
    const region = screen.getByRole("status", { name: "Notifications" });
    expect(region).toHaveAttribute("aria-live", "polite");
    expect(region).toHaveTextContent("Saved Team box.");
    act(() => vi.advanceTimersByTime(6500));
    expect(region).not.toHaveTextContent("Saved Team box.");
  });

  it("holds a note while the pointer rests on it, and dismisses it on request", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    render(
      <ToastProvider>
        <Saver />
      </ToastProvider>,
    );
    await user.click(screen.getByRole("button", { name: "Save" }));
    await user.hover(screen.getByText("Saved Team box."));
    act(() => vi.advanceTimersByTime(10_000));
    expect(screen.getByText("Saved Team box.")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Dismiss" }));
    expect(screen.queryByText("Saved Team box.")).toBeNull();
  });

  it("sends notes nowhere when no provider is mounted", async () => {
    render(<Saver />);
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(screen.queryByRole("status")).toBeNull();
  });
});
