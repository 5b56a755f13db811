import { XCircle } from "lucide-react";
import type { ProbeResult } from "../../../api/types";
import { Button } from "../../../ui/Button";
import { DialogFooter } from "../../../ui/Dialog";
import { reasonLabels } from "./TestConnection";

/** What to check for each reason a probe gives. */
export const reasonChecks: Record<string, string> = {
  network:
    "Check that the URL is right and that this server can reach it (firewalls, proxies, DNS), and that the provider is running.",
  auth: "Check the API key or secret: it may be mistyped, revoked or without access to this account.",
  config: "Check the provider's settings (template, image, snapshot, target): the provider refused them.",
  quota: "Check the provider account's limits: it refused for lack of quota or credit.",
  provider: "The provider answered with an error of its own: check its status page or logs, then test again.",
};

interface SaveTestFailureProps {
  name: string;
  result: ProbeResult;
  testing: boolean;
  onTestAgain: () => void;
  onEdit: () => void;
  onClose: () => void;
}

/** Save & test: the sandbox is saved, but its connection test failed; says why and what to check. */
export function SaveTestFailure({ name, result, testing, onTestAgain, onEdit, onClose }: SaveTestFailureProps) {
  const reason = result.reason ?? "";
  return (
    <div className="save-test">
      <div className="save-test__failure" role="alert">
        <XCircle size={18} aria-hidden="true" />
        <div>
          <p>
            <strong>Saved “{name}”, but the connection test failed.</strong> Runs on it fail until it answers.
          </p>
          <p>
            <strong>{reasonLabels[reason] ?? "Failed"}:</strong> {result.detail || "no detail given"}
          </p>
          <p className="muted">What to check: {reasonChecks[reason] ?? reasonChecks.provider}</p>
        </div>
      </div>
      <DialogFooter>
        <Button onClick={onTestAgain} busy={testing} disabled={testing}>
          Test again
        </Button>
        <span className="spacer" />
        <Button onClick={onClose}>Done</Button>
        <Button variant="primary" onClick={onEdit}>
          Edit settings
        </Button>
      </DialogFooter>
    </div>
  );
}
