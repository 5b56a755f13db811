import { AlertTriangle } from "lucide-react";
import type { Tool } from "../../api/types";
import { restrictionsTheShellBypasses, type ToolPolicies } from "./tools";

interface ShellBypassWarningProps {
  tools: ToolPolicies;
  catalogue: Tool[];
}

/** Warns that an always-allowed shell undoes the approval or disabling of the file tools. */
export function ShellBypassWarning({ tools, catalogue }: ShellBypassWarningProps) {
  const restricted = restrictionsTheShellBypasses(tools);
  const titleOf = (name: string) => catalogue.find((t) => t.name === name)?.title ?? name;
  return (
    <div role="status" aria-live="polite">
      {restricted.length > 0 && (
        <p className="notice tool-card__warning">
          <AlertTriangle size={14} aria-hidden="true" />
          <span>
            {titleOf("execute")} is always allowed, and a shell command can read and write files: the limits on{" "}
            {restricted.map(titleOf).join(", ")} can be worked around. Set {titleOf("execute")} to Needs approval as well
            for them to hold.
          </span>
        </p>
      )}
    </div>
  );
}
