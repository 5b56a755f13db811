import { CheckCircle2, PlugZap, XCircle } from "lucide-react";
import type { ProbeResult } from "../../../api/types";
import { Button } from "../../../ui/Button";

// The probe's reason codes, worded for a person.
export const reasonLabels: Record<string, string> = {
  network: "Network",
  auth: "Credentials",
  config: "Configuration",
  quota: "Account limits",
  provider: "Provider",
};

interface TestConnectionProps {
  onTest: () => void;
  busy: boolean;
  result?: ProbeResult;
  /** Why the test did not run (the form's fields were refused). */
  problem?: string;
  disabled?: boolean;
}

export function TestConnection({ onTest, busy, result, problem, disabled }: TestConnectionProps) {
  return (
    <div className="test-connection">
      <Button onClick={onTest} busy={busy} disabled={busy || disabled}>
        {!busy && <PlugZap size={14} aria-hidden="true" />}
        Test connection
      </Button>
      <div className="test-connection__result" role="status" aria-live="polite">
        {busy && <span className="muted">Testing…</span>}
        {!busy && result?.ok && (
          <span className="test-connection__ok">
            <CheckCircle2 size={14} aria-hidden="true" /> Connected in {result.latency_ms} ms
          </span>
        )}
        {!busy && problem && (
          <span className="test-connection__failed">
            <XCircle size={14} aria-hidden="true" />
            <span>{problem}</span>
          </span>
        )}
        {!busy && result && !result.ok && (
          <span className="test-connection__failed">
            <XCircle size={14} aria-hidden="true" />
            <span>
              <strong>{reasonLabels[result.reason ?? ""] ?? "Failed"}:</strong> {result.detail}
            </span>
          </span>
        )}
      </div>
    </div>
  );
}
