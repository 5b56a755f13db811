import { useQueryClient } from "@tanstack/react-query";
import { Play, Square } from "lucide-react";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { describeError } from "../../api/problem";
import { Button } from "../../ui/Button";
import { formatDuration } from "../../ui/time";
import { needsApproval } from "./api/approval";
import { executeCommand } from "./api/executeCommand";
import type { ExecuteExit } from "./api/types";
import { useCommandHistory } from "./useCommandHistory";

interface Chunk {
  stream: "stdout" | "stderr";
  text: string;
}

interface CommandRun {
  id: number;
  command: string;
  chunks: Chunk[];
  exit?: ExecuteExit;
  error?: string;
  /** The tool's policy asks a person to approve each call. */
  needsApproval?: boolean;
}

/** A command line and the output of the commands run so far, streamed as it comes. */
export function Terminal({
  runId,
  disabled,
  onError,
}: {
  runId: string;
  disabled?: boolean;
  /** A command's call failed (told so the console can learn the run ended). */
  onError?: (error: unknown) => void;
}) {
  const queryClient = useQueryClient();
  const [command, setCommand] = useState("");
  const [runs, setRuns] = useState<CommandRun[]>([]);
  const [running, setRunning] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const output = useRef<HTMLDivElement>(null);
  const history = useCommandHistory();

  useEffect(() => () => abort.current?.abort(), []);
  useEffect(() => {
    output.current?.scrollTo({ top: output.current.scrollHeight });
  }, [runs]);

  const update = (id: number, change: (run: CommandRun) => CommandRun) =>
    setRuns((all) => all.map((r) => (r.id === id ? change(r) : r)));

  const run = async (text: string, approved = false) => {
    if (!text || running || disabled) return;
    const id = Date.now();
    setRuns((all) => [...all, { id, command: text, chunks: [] }]);
    setRunning(true);
    const controller = new AbortController();
    abort.current = controller;
    try {
      await executeCommand({
        runId,
        command: text,
        approved,
        signal: controller.signal,
        onEvent: (event) =>
          update(id, (r) =>
            event.kind === "exit"
              ? { ...r, exit: event.exit }
              : { ...r, chunks: [...r.chunks, { stream: event.kind, text: event.text }] },
          ),
      });
    } catch (error) {
      const message = controller.signal.aborted ? "Stopped waiting for output." : describeError(error);
      update(id, (r) => ({ ...r, error: message, needsApproval: needsApproval(error) }));
      if (!controller.signal.aborted) onError?.(error);
    } finally {
      setRunning(false);
      abort.current = null;
      // A command may have changed the files.
      void queryClient.invalidateQueries({ queryKey: ["runs", runId] });
    }
  };

  const submit = () => {
    const text = command.trim();
    if (!text || running || disabled) return;
    history.record(text);
    setCommand("");
    void run(text);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    const field = e.currentTarget;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      submit();
    } else if (e.key === "ArrowUp" && !field.value.slice(0, field.selectionStart).includes("\n")) {
      const previous = history.back(field.value);
      if (previous !== null) {
        e.preventDefault();
        setCommand(previous);
      }
    } else if (e.key === "ArrowDown" && !field.value.slice(field.selectionEnd).includes("\n")) {
      const next = history.forward();
      if (next !== null) {
        e.preventDefault();
        setCommand(next);
      }
    }
  };

  return (
    <section className="terminal" aria-labelledby="terminal-heading">
      <h2 id="terminal-heading" className="visually-hidden">
        Terminal
      </h2>
      <div className="terminal__output" ref={output} role="log" aria-label="Command output" tabIndex={0}>
        {runs.length === 0 && <p className="terminal__muted">Output of the commands you run appears here.</p>}
        {runs.map((r) => (
          <div key={r.id} className="terminal__run">
            <div className="terminal__command">
              <span aria-hidden="true">$ </span>
              {r.command}
            </div>
            <pre className="terminal__text">
              {r.chunks.map((c, i) => (
                <span key={i} className={c.stream === "stderr" ? "terminal__stderr" : undefined}>
                  {c.text}
                </span>
              ))}
            </pre>
            {r.exit && (
              <div className={r.exit.exit_code === 0 ? "terminal__exit" : "terminal__exit terminal__exit--failed"}>
                exit {r.exit.exit_code} · {formatDuration(r.exit.duration_ms)}
                {r.exit.truncated && " · output truncated"}
              </div>
            )}
            {r.error && <div className="terminal__exit terminal__exit--failed">{r.error}</div>}
            {r.needsApproval && (
              <Button size="sm" className="terminal__approve" disabled={running} onClick={() => void run(r.command, true)}>
                Approve and run
              </Button>
            )}
          </div>
        ))}
      </div>
      <div className="terminal__input">
        <label htmlFor="terminal-command" className="visually-hidden">
          Command
        </label>
        <span className="terminal__prompt" aria-hidden="true">
          $
        </span>
        <textarea
          id="terminal-command"
          className="terminal__field"
          rows={Math.min(Math.max(command.split("\n").length, 1), 6)}
          value={command}
          spellCheck={false}
          autoComplete="off"
          placeholder="ls -la"
          disabled={disabled}
          aria-describedby="terminal-keys"
          onChange={(e) => setCommand(e.target.value)}
          onKeyDown={onKeyDown}
        />
        {running ? (
          <Button size="sm" onClick={() => abort.current?.abort()}>
            <Square size={12} aria-hidden="true" /> Stop
          </Button>
        ) : (
          <Button size="sm" variant="primary" onClick={submit} disabled={disabled || command.trim() === ""}>
            <Play size={12} aria-hidden="true" /> Run
          </Button>
        )}
      </div>
      <p id="terminal-keys" className="field__help">
        <kbd>Ctrl</kbd>+<kbd>Enter</kbd> runs the command; <kbd>↑</kbd> and <kbd>↓</kbd> go through earlier ones.
      </p>
    </section>
  );
}
