import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { Dialog } from "./Dialog";

function Opener() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button onClick={() => setOpen(true)}>Open it</button>
      <Dialog open={open} onOpenChange={setOpen} title="A dialog">
        <input aria-label="Inside" />
      </Dialog>
    </>
  );
}

function DirtyOpener() {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  return (
    <>
      <button onClick={() => setOpen(true)}>Open it</button>
      <Dialog open={open} onOpenChange={setOpen} title="A form" dirty={text !== ""}>
        <input aria-label="Name" value={text} onChange={(e) => setText(e.target.value)} />
      </Dialog>
    </>
  );
}

describe("Dialog", () => {
  it("asks before Escape loses what was typed in it, and keeps it on Keep editing", async () => {
    const user = userEvent.setup();
    render(<DirtyOpener />);
    await user.click(screen.getByRole("button", { name: "Open it" }));
    await user.type(await screen.findByRole("textbox", { name: "Name" }), "half typed");
    await user.keyboard("{Escape}");
    const dialog = screen.getByRole("dialog", { name: "A form" });
    expect(screen.getByRole("alert")).toHaveTextContent("Close and lose the changes made here?");
    await user.click(screen.getByRole("button", { name: "Keep editing" }));
    expect(screen.getByRole("textbox", { name: "Name" })).toHaveValue("half typed");
    expect(dialog).toBeInTheDocument();

    await user.keyboard("{Escape}");
    await user.click(screen.getByRole("button", { name: "Discard changes" }));
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("closes on Escape and gives focus back to what opened it", async () => {
    const user = userEvent.setup();
    render(<Opener />);
    const opener = screen.getByRole("button", { name: "Open it" });
    await user.click(opener);
    const dialog = await screen.findByRole("dialog", { name: "A dialog" });
    expect(dialog).toContainElement(document.activeElement as HTMLElement);
    await user.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(opener).toHaveFocus();
  });
});
