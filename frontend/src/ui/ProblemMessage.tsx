import { AlertCircle } from "lucide-react";
import type { ReactNode } from "react";
import { describeError } from "../api/problem";

interface ProblemMessageProps {
  error: unknown;
  /** Shown after the detail, such as a Retry button. */
  action?: ReactNode;
}

/** A problem the server (or the network) reported, announced to screen readers. */
export function ProblemMessage({ error, action }: ProblemMessageProps) {
  return (
    <div className="problem" role="alert">
      <AlertCircle size={16} aria-hidden="true" className="problem__icon" />
      <p className="problem__text">{describeError(error)}</p>
      {action}
    </div>
  );
}
