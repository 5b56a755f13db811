import { useEffect, useState } from "react";
import type { RunStartStep } from "./api/types";

const labels: Record<RunStartStep["step"], string> = {
  probing: "Checking the sandbox",
  reconnecting: "Reconnecting",
  waiting: "Waiting for another run",
  creating: "Creating the instance",
  installing: "Installing packages",
  ready: "Ready",
};

export interface StartSteps {
  /** When the start began (ms since the epoch). */
  startedAt: number;
  /** Each step with the second it began, from startedAt. */
  steps: { step: RunStartStep; at: number }[];
  /** pip's output while packages install. */
  output: string;
}

function seconds(ms: number) {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * The steps of a run start as they arrive, with the time each began and the
 * time gone by; a start that failed says so rather than "Started".
 */
export function StartProgress({ progress, pending, failed = false }: { progress: StartSteps; pending: boolean; failed?: boolean }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [pending]);
  const elapsed = (pending ? now : (progress.steps.at(-1)?.at ?? 0) + progress.startedAt) - progress.startedAt;

  return (
    <section className="start-progress" aria-label="Start progress">
      <p className="start-progress__elapsed muted" role="timer" aria-live="off">
        {pending ? "Starting…" : failed ? "Failed after" : "Started in"} <span className="mono">{seconds(Math.max(0, elapsed))}</span>
      </p>
      <ol className="start-progress__steps" aria-live="polite">
        {progress.steps.map(({ step, at }, i) => (
          <li key={i} className="start-progress__step">
            <span className="mono muted">{seconds(at)}</span> <strong>{labels[step.step] ?? step.step}</strong>{" "}
            <span className="muted">{step.detail}</span>
          </li>
        ))}
      </ol>
      {progress.output && (
        <pre className="start-progress__output mono" aria-label="Installer output" tabIndex={0}>
          {progress.output}
        </pre>
      )}
    </section>
  );
}
