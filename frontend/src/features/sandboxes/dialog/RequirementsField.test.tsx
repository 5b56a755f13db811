import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { RequirementsField } from "./RequirementsField";

let saved: string[] = [];

function Harness() {
  const [value, setValue] = useState<string[]>([]);
  saved = value;
  return <RequirementsField label="Default packages" description="pip requirements." value={value} onChange={setValue} />;
}

describe("RequirementsField", () => {
  it("takes the seed's comma-separated list and shows the list as it will be saved", { timeout: 30_000 }, async () => {
    const user = userEvent.setup();
    render(<Harness />);
    const input = screen.getByRole("textbox", { name: "Default packages" });
    await user.click(input);
    await user.paste("pandas==2.2.*, matplotlib, openpyxl\nscipy>=1,<2");

    expect(saved).toEqual(["pandas==2.2.*", "matplotlib", "openpyxl", "scipy>=1,<2"]);
    expect(input).toHaveAccessibleDescription(
      "pip requirements. One per line, or separated by commas. Saved as 4 requirements: pandas==2.2.*, matplotlib, openpyxl, scipy>=1,<2.",
    );
    // The text stays as typed: the commas are not rewritten under the cursor.
    expect(input).toHaveValue("pandas==2.2.*, matplotlib, openpyxl\nscipy>=1,<2");
  });
});
