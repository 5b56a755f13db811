import type { SandboxHealth } from "../api/types";
import { Pill } from "./Pill";
import { timeAgo } from "./time";

const tones = { ok: "ok", failed: "danger", unknown: "neutral" } as const;

/** A sandbox's health where it is chosen: its status, latency and age, in one pill and a muted line. */
export function HealthSummary({ health }: { health: SandboxHealth }) {
  const facts = [
    health.status === "ok" && health.latency_ms != null && `${health.latency_ms} ms`,
    health.checked_at && `checked ${timeAgo(health.checked_at)}`,
  ].filter(Boolean);
  return (
    <span className="health">
      <Pill tone={tones[health.status]}>
        <span className="visually-hidden">Health </span>
        {health.status}
      </Pill>
      {facts.length > 0 && <span className="muted">{facts.join(" · ")}</span>}
    </span>
  );
}

/** Warns that a sandbox failed its last probe, with the provider's words; nothing when it did not. */
export function FailingSandboxWarning({ name, health }: { name: string; health: SandboxHealth }) {
  if (health.status !== "failed") return null;
  return (
    <p className="notice sandbox-health-warning" role="alert">
      Sandbox “{name}” failed its last health check{health.checked_at ? ` (${timeAgo(health.checked_at)})` : ""}
      {health.detail ? `: ${health.detail}` : ""}. Runs on it fail with “sandbox unavailable” until it answers again.
    </p>
  );
}
