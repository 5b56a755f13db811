import { useRef } from "react";
import { Button } from "../../ui/Button";
import { useShellSession, type ShellState } from "./useShellSession";
import { useXterm } from "./useXterm";

interface ShellTerminalProps {
  runId: string;
  /** The run has ended: no shell opens, and an open one closes. */
  disabled?: boolean;
}

function ShellStatus({ state, disabled, onApprove, onReopen }: { state: ShellState; disabled?: boolean; onApprove: () => void; onReopen: () => void }) {
  if (disabled) {
    return (
      <p className="pty__status muted" role="status">
        The run has ended: its terminal is closed.
      </p>
    );
  }
  switch (state.phase) {
    case "opening":
      return (
        <p className="pty__status muted" role="status">
          Opening a shell in the sandbox…
        </p>
      );
    case "open":
      return (
        <p className="pty__status muted" role="status">
          Shell open in the run's working directory.
        </p>
      );
    case "approval":
      return (
        <div className="notice pty__approval" role="region" aria-label="Approve the terminal">
          <p>
            This agent's <span className="mono">execute</span> tool needs a person's approval. A terminal runs whatever is typed
            in it, in the sandbox, until it is closed.
          </p>
          <Button size="sm" variant="primary" onClick={onApprove}>
            Approve and open terminal
          </Button>
        </div>
      );
    case "exited":
      return (
        <div className={state.code === 0 ? "pty__end" : "pty__end pty__end--failed"} role="status">
          <p>The shell exited with code {state.code}.</p>
          <Button size="sm" onClick={onReopen}>
            Open a new shell
          </Button>
        </div>
      );
    case "failed":
      return (
        <div className="pty__end pty__end--failed" role="alert">
          <p>{state.message}</p>
          <Button size="sm" onClick={onReopen}>
            Try again
          </Button>
        </div>
      );
  }
}

/**
 * An interactive shell in the run's sandbox (xterm.js over the run's
 * terminal WebSocket), beside the one-command-at-a-time form.
 */
export default function ShellTerminal({ runId, disabled = false }: ShellTerminalProps) {
  const screen = useRef<HTMLDivElement>(null);
  const term = useXterm(screen, "Shell input", "shell-keys");
  const { state, approve, reopen } = useShellSession(runId, term, disabled);

  return (
    <section className="pty" aria-labelledby="shell-heading">
      <h2 id="shell-heading" className="visually-hidden">
        Shell
      </h2>
      <ShellStatus state={state} disabled={disabled} onApprove={approve} onReopen={reopen} />
      <div className="pty__screen" ref={screen} />
      <p id="shell-keys" className="field__help">
        <kbd>Ctrl</kbd>+<kbd>Shift</kbd>+<kbd>C</kbd> copies the selection, <kbd>Ctrl</kbd>+<kbd>Shift</kbd>+<kbd>V</kbd> pastes;{" "}
        <kbd>Shift</kbd>+<kbd>Tab</kbd> leaves the terminal.
      </p>
    </section>
  );
}
