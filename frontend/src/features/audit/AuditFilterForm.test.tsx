import { render, screen, within } from "@testing-library/react";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { operations } from "../../api/schema.gen";
import { AuditFilterForm, auditActions } from "./AuditFilterForm";

type SpecAction = NonNullable<NonNullable<operations["listAuditEntries"]["parameters"]["query"]>["action"]>;

describe("the audit filters' actions", () => {
  it("are the actions the API's spec lists, every one", () => {
    // The compiler checks this one (npm run lint): an action the spec gains fails here until the filter offers it.
    expectTypeOf<(typeof auditActions)[number]>().toEqualTypeOf<SpecAction>();
  });

  it("offer a dropped terminal taken back by the token that opened it", () => {
    render(<AuditFilterForm filters={{}} tokens={[]} errors={{}} onApply={() => {}} />);
    const action = screen.getByRole("combobox", { name: "Action" });
    expect(within(action).getByRole("option", { name: "terminal.reattached" })).toBeInTheDocument();
  });
});
