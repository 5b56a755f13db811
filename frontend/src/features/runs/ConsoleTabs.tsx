import { lazy, Suspense, useRef, useState, type KeyboardEvent } from "react";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { useProviders } from "../../api/listProviders";
import { Terminal } from "./Terminal";
import "./terminal-pane.css";

// xterm.js is loaded only when someone opens a terminal.
const ShellTerminal = lazy(() => import("./ShellTerminal"));

const tabs = [
  { id: "commands", label: "Commands" },
  { id: "terminal", label: "Terminal" },
] as const;
type Tab = (typeof tabs)[number]["id"];

function NoTerminal({ provider }: { provider: string }) {
  const { data: providers, isPending, error } = useProviders();
  if (isPending) return <p className="muted">Loading…</p>;
  if (error) return <ProblemMessage error={error} />;
  const title = providers?.find((p) => p.name === provider)?.title ?? provider;
  return (
    <p className="notice" role="status">
      This sandbox's provider ({title}) has no terminal. Use Commands to run one command at a time.
    </p>
  );
}

interface ConsoleTabsProps {
  runId: string;
  /** The run's sandbox's provider, whose capabilities say whether it has a terminal. */
  provider: string;
  disabled?: boolean;
  /** A command's call failed: the console learns from it whether the run ended. */
  onError?: (error: unknown) => void;
}

/**
 * The run's command form and, in a tab beside it, an interactive terminal
 * when the sandbox's provider has one. The terminal opens the first time its
 * tab is chosen and stays open while the other tab is shown.
 */
export function ConsoleTabs({ runId, provider, disabled, onError }: ConsoleTabsProps) {
  const [tab, setTab] = useState<Tab>("commands");
  const [terminalOpened, setTerminalOpened] = useState(false);
  const buttons = useRef<Partial<Record<Tab, HTMLButtonElement | null>>>({});
  const { data: providers } = useProviders();
  const hasTerminal = providers?.find((p) => p.name === provider)?.capabilities.includes("terminal") ?? false;

  const choose = (next: Tab) => {
    setTab(next);
    if (next === "terminal") setTerminalOpened(true);
  };
  // Arrow keys move between the tabs, as the ARIA tabs pattern has it.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const at = tabs.findIndex((t) => t.id === tab);
    const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
    const to = e.key === "Home" ? 0 : e.key === "End" ? tabs.length - 1 : step ? (at + step + tabs.length) % tabs.length : -1;
    const next = tabs[to];
    if (!next) return;
    e.preventDefault();
    choose(next.id);
    buttons.current[next.id]?.focus();
  };

  return (
    <div className="console-tabs">
      <div className="console-tabs__list" role="tablist" aria-label="How to work in the sandbox" onKeyDown={onKeyDown}>
        {tabs.map((t) => (
          <button
            key={t.id}
            ref={(el) => {
              buttons.current[t.id] = el;
            }}
            type="button"
            role="tab"
            id={`console-tab-${t.id}`}
            aria-controls={`console-panel-${t.id}`}
            aria-selected={tab === t.id}
            tabIndex={tab === t.id ? 0 : -1}
            className="console-tabs__tab"
            onClick={() => choose(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="console-panel-commands" aria-labelledby="console-tab-commands" hidden={tab !== "commands"}>
        <Terminal runId={runId} disabled={disabled} onError={onError} />
      </div>
      <div role="tabpanel" id="console-panel-terminal" aria-labelledby="console-tab-terminal" hidden={tab !== "terminal"}>
        {terminalOpened &&
          (hasTerminal ? (
            <Suspense fallback={<p className="muted">Loading the terminal…</p>}>
              <ShellTerminal runId={runId} disabled={disabled} />
            </Suspense>
          ) : (
            <NoTerminal provider={provider} />
          ))}
      </div>
    </div>
  );
}
