import type { SandboxHealth } from "../../api/types";
import { Pill } from "../../ui/Pill";
import { Sparkline } from "../../ui/Sparkline";
import { Tooltip } from "../../ui/Tooltip";
import { timeAgo } from "../../ui/time";

const tones = { ok: "ok", failed: "danger", unknown: "neutral" } as const;

/** The last probe's outcome, its latency and age; the failure detail on hover or focus. */
export function HealthBadge({ health }: { health: SandboxHealth }) {
  // A failed probe has no latency worth showing: it is a failure, not a fast answer.
  const facts = [
    health.status === "ok" && health.latency_ms != null && `${health.latency_ms} ms`,
    health.checked_at && `checked ${timeAgo(health.checked_at)}`,
  ].filter(Boolean);

  const pill = <Pill tone={tones[health.status]}>{health.status}</Pill>;
  const history = health.history ?? [];

  return (
    <span className="health">
      {health.detail ? (
        <Tooltip content={health.detail}>
          <span className="health__trigger" tabIndex={0} aria-label={`Health ${health.status}: ${health.detail}`}>
            {pill}
          </span>
        </Tooltip>
      ) : (
        <span className="health__trigger">
          <span className="visually-hidden">Health </span>
          {pill}
        </span>
      )}
      {facts.length > 0 && <span className="muted">{facts.join(" · ")}</span>}
      {history.length > 1 && (
        <Sparkline
          values={history.map((p) => (p.ok ? p.latency_ms : null))}
          label={`The last ${history.length} probes: ${history.map((p) => (p.ok ? `${p.latency_ms} ms` : "failed")).join(", ")}`}
        />
      )}
    </span>
  );
}
