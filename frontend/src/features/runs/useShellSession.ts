import { useQueryClient } from "@tanstack/react-query";
import type { IDisposable, Terminal } from "@xterm/xterm";
import { useCallback, useEffect, useState } from "react";
import { describeError } from "../../api/problem";
import { needsApproval } from "./api/approval";
import { createTerminalTicket, parseControl, resizeFrame, terminalSocketUrl } from "./api/terminal";

export type ShellState =
  | { phase: "opening" }
  /** The run's execute tool needs a person's approval before a shell opens. */
  | { phase: "approval" }
  | { phase: "open" }
  | { phase: "exited"; code: number }
  | { phase: "failed"; message: string };

interface Attempt {
  n: number;
  approved: boolean;
}

const encoder = new TextEncoder();

/** How long the shell's output stays quiet after Enter before its command is taken as done. */
export const settleMs = 800;

/**
 * Calls done once the output has been quiet for settleMs after a line was
 * entered: a command typed in the shell may have changed the files shown
 * beside it.
 */
function afterEachCommand(done: () => void) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let entered = false;
  const wait = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      entered = false;
      done();
    }, settleMs);
  };
  return {
    typed: (data: string) => {
      if (!data.includes("\r")) return;
      entered = true;
      wait();
    },
    output: () => entered && wait(),
    stop: () => clearTimeout(timer),
  };
}

/** Bytes for xterm's binary strings (mouse reports), one byte a character. */
function latin1(data: string): Uint8Array {
  return Uint8Array.from(data, (c) => c.charCodeAt(0));
}

function lostMessage(opened: boolean, event: CloseEvent): string {
  const reason = event.reason ? `: ${event.reason}` : ".";
  return opened
    ? `The connection to the terminal was lost (${event.code})${reason}`
    : `The terminal could not be opened${reason}`;
}

/**
 * The run's shell in term: a ticket (with the approval once a person gave
 * it), then the WebSocket: keystrokes out as binary frames, output in as
 * binary frames, a resize frame each time the terminal's size changes, and
 * the end (exit code, error, or a lost connection) from the server's text
 * frames. Nothing opens while disabled; disabling closes the shell.
 */
export function useShellSession(runId: string, term: Terminal | null, disabled: boolean) {
  const [state, setState] = useState<ShellState>({ phase: "opening" });
  const [attempt, setAttempt] = useState<Attempt>({ n: 0, approved: false });
  const queryClient = useQueryClient();

  useEffect(() => {
    if (!term || disabled) return;
    let cancelled = false;
    let socket: WebSocket | null = null;
    const listeners: IDisposable[] = [];
    const commands = afterEachCommand(() => void queryClient.invalidateQueries({ queryKey: ["runs", runId] }));
    setState({ phase: "opening" });

    const connect = (ticket: string) => {
      const ws = new WebSocket(terminalSocketUrl(runId, ticket, { cols: term.cols, rows: term.rows }));
      socket = ws;
      ws.binaryType = "arraybuffer";
      let opened = false;
      let ended = false;
      const send = (frame: string | Uint8Array) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(frame);
      };
      ws.onopen = () => {
        opened = true;
        setState({ phase: "open" });
        term.focus();
      };
      ws.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
        if (typeof event.data !== "string") {
          term.write(new Uint8Array(event.data));
          commands.output();
          return;
        }
        const control = parseControl(event.data);
        if (!control) return;
        ended = true;
        setState(control.type === "exit" ? { phase: "exited", code: control.code } : { phase: "failed", message: control.message });
      };
      ws.onclose = (event) => {
        if (!ended && !cancelled) setState({ phase: "failed", message: lostMessage(opened, event) });
      };
      listeners.push(
        term.onData((data) => {
          commands.typed(data);
          send(encoder.encode(data));
        }),
        term.onBinary((data) => send(latin1(data))),
        term.onResize((size) => send(resizeFrame(size))),
      );
    };

    createTerminalTicket(runId, attempt.approved).then(
      (ticket) => {
        if (!cancelled) connect(ticket);
      },
      (error: unknown) => {
        if (cancelled) return;
        setState(needsApproval(error) ? { phase: "approval" } : { phase: "failed", message: describeError(error) });
      },
    );

    return () => {
      cancelled = true;
      commands.stop();
      for (const listener of listeners) listener.dispose();
      socket?.close(1000);
    };
  }, [runId, term, disabled, attempt, queryClient]);

  /** A person approves the terminal for this run: ask again with the approval. */
  const approve = useCallback(() => setAttempt((a) => ({ n: a.n + 1, approved: true })), []);
  /** A new shell after the last one ended, keeping any approval given. */
  const reopen = useCallback(() => {
    term?.reset();
    setAttempt((a) => ({ ...a, n: a.n + 1 }));
  }, [term]);

  return { state, approve, reopen };
}
