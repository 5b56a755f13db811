import { act, fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Dialog } from "./Dialog";
import { Tooltip } from "./Tooltip";

function Trigger() {
  return (
    <Tooltip content="Delete the sandbox">
      <button type="button">Delete</button>
    </Tooltip>
  );
}

describe("Tooltip", () => {
  beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }));
  afterEach(() => vi.useRealTimers());

  it("shows after the pointer rests on its trigger, describes it, and hides when the pointer leaves", () => {
    render(<Trigger />);
    const button = screen.getByRole("button", { name: "Delete" });
    fireEvent.pointerEnter(button);
    expect(screen.queryByRole("tooltip")).toBeNull();
    act(() => vi.advanceTimersByTime(300));
    expect(screen.getByRole("tooltip")).toHaveTextContent("Delete the sandbox");
    expect(button).toHaveAccessibleDescription("Delete the sandbox");
    fireEvent.pointerLeave(button);
    act(() => vi.advanceTimersByTime(100));
    expect(screen.queryByRole("tooltip")).toBeNull();
    expect(button).not.toHaveAttribute("aria-describedby");
  });

  it("stays open while the pointer moves onto it", () => {
    render(<Trigger />);
    const button = screen.getByRole("button", { name: "Delete" });
    fireEvent.pointerEnter(button);
    act(() => vi.advanceTimersByTime(300));
    fireEvent.pointerLeave(button);
    fireEvent.pointerEnter(screen.getByRole("tooltip"));
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.getByRole("tooltip")).toBeInTheDocument();
    fireEvent.pointerLeave(screen.getByRole("tooltip"));
    act(() => vi.advanceTimersByTime(100));
    expect(screen.queryByRole("tooltip")).toBeNull();
  });

  it("shows at once on keyboard focus, and Escape or blur hides it", async () => {
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    render(
      <>
        <Trigger />
        <button type="button">Next</button>
      </>,
    );
    await user.tab();
    expect(screen.getByRole("tooltip")).toHaveTextContent("Delete the sandbox");
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("tooltip")).toBeNull();
    expect(screen.getByRole("button", { name: "Delete" })).toHaveFocus();
    await user.tab({ shift: true });
    await user.tab();
    expect(screen.getByRole("tooltip")).toBeInTheDocument();
    await user.tab();
    expect(screen.queryByRole("tooltip")).toBeNull();
  });

  it("does not show for a click", async () => {
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const onClick = vi.fn();
    render(
      <Tooltip content="Edit">
        <button type="button" onClick={onClick}>
          Edit
        </button>
      </Tooltip>,
    );
    await user.click(screen.getByRole("button", { name: "Edit" })); // hovers, presses, focuses
    expect(onClick).toHaveBeenCalledOnce();
    act(() => vi.advanceTimersByTime(1000));
    expect(screen.queryByRole("tooltip")).toBeNull();
  });

  it("keeps the trigger's own handlers and description", () => {
    const onFocus = vi.fn();
    render(
      <>
        <p id="more">More words</p>
        <Tooltip content="Tip">
          <button type="button" aria-describedby="more" onFocus={onFocus}>
            Go
          </button>
        </Tooltip>
      </>,
    );
    const button = screen.getByRole("button", { name: "Go" });
    act(() => button.focus());
    expect(onFocus).toHaveBeenCalledOnce();
    expect(button).toHaveAccessibleDescription("More words Tip");
  });

  it("in a dialog, Escape closes the tooltip first and the dialog next", async () => {
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const onOpenChange = vi.fn();
    render(
      <Dialog open onOpenChange={onOpenChange} title="A dialog">
        <Tooltip content="Tip">
          <button type="button">Inside</button>
        </Tooltip>
      </Dialog>,
    );
    const inside = screen.getByRole("button", { name: "Inside" });
    while (document.activeElement !== inside) await user.tab(); // the dialog may have focused it on opening
    expect(screen.getByRole("tooltip")).toBeInTheDocument();
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("tooltip")).toBeNull();
    expect(onOpenChange).not.toHaveBeenCalled();
    await user.keyboard("{Escape}");
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });
});
