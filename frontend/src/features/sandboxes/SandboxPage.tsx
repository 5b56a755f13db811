import { ArrowLeft, Pencil } from "lucide-react";
import { useState, type ReactNode } from "react";
import { Link, useParams } from "react-router-dom";
import { useProviders } from "../../api/listProviders";
import type { Sandbox } from "../../api/types";
import { useSession } from "../../session/SessionContext";
import { Button } from "../../ui/Button";
import { ChunkFailed, lazyComponent, useLazyComponent } from "../../ui/lazy";
import { Loading } from "../../ui/Loading";
import { Pill } from "../../ui/Pill";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { ProviderIcon } from "../../ui/ProviderIcon";
import { usePageTitle } from "../../ui/usePageTitle";
import { emojiPrefix } from "../../ui/emojiGlyph";
import { useSandbox } from "./api/getSandbox";
import { useSandboxInstances } from "../../api/instances";
import { useSandboxAudit } from "./api/sandboxAudit";
import { useSandboxAgents } from "./api/listSandboxAgents";
import { useProbeSandbox } from "./api/probeSandbox";
import { HealthBadge } from "./HealthBadge";
import { InstancesTable } from "../../ui/InstancesTable";
import { PoolStatus } from "./PoolStatus";
import { ProbeChart } from "./ProbeChart";
import "./sandboxes.css";

const sandboxDialog = lazyComponent(() => import("./dialog/SandboxDialog").then((module) => module.SandboxDialog));

/** A sandbox's own page: its settings, agents, live instances, health, warm pool and audit entries. */
export default function SandboxPage() {
  const { sandboxId = "" } = useParams();
  const { isAdmin } = useSession();
  const sandbox = useSandbox(sandboxId);
  const [editing, setEditing] = useState(false);
  const { Component: SandboxDialog, error: dialogError } = useLazyComponent(sandboxDialog, editing);
  usePageTitle(sandbox.data?.sandbox.name ?? "Sandbox");

  const back = (
    <Link to="/settings/sandboxes" className="back-link">
      <ArrowLeft size={14} aria-hidden="true" /> Sandboxes
    </Link>
  );
  if (sandbox.isPending) return <Loading label="Loading the sandbox…" />;
  if (sandbox.isError) {
    return (
      <div className="page">
        {back}
        <ProblemMessage
          error={sandbox.error}
          action={
            <Button size="sm" onClick={() => sandbox.refetch()}>
              Retry
            </Button>
          }
        />
      </div>
    );
  }
  const sb = sandbox.data.sandbox;
  return (
    <div className="page sandbox-page">
      {back}
      <header className="page-header">
        <ProviderIcon provider={sb.provider} />
        <h1 className="truncate">{sb.name}</h1>
        <HealthBadge health={{ ...sb.health, history: [] }} />
        <span className="spacer" />
        {isAdmin && (
          <Button onClick={() => setEditing(true)}>
            <Pencil size={14} aria-hidden="true" /> Edit
          </Button>
        )}
        {sb.description && <p className="page-header__lead">{sb.description}</p>}
      </header>
      {editing && dialogError ? <ChunkFailed part="This dialog" /> : null}
      <Settings sandbox={sb} />
      <Agents sandboxId={sb.id} />
      {isAdmin && <Instances sandbox={sb} />}
      <Health sandbox={sb} canProbe={isAdmin} />
      <Section title="Warm pool">
        {sb.pool && sb.pool.state !== "off" ? (
          <PoolStatus pool={sb.pool} />
        ) : (
          <p className="muted">No warm pool: each new thread waits for its instance to be made. Its size is set under Edit.</p>
        )}
      </Section>
      {isAdmin && <AuditEntries sandboxId={sb.id} />}
      {isAdmin && SandboxDialog && (
        <SandboxDialog open={editing} onOpenChange={(open) => !open && setEditing(false)} sandboxId={sb.id} />
      )}
    </div>
  );
}

function Section({ title, children, action }: { title: string; children: ReactNode; action?: ReactNode }) {
  const id = `section-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return (
    <section className="card sandbox-section" aria-labelledby={id}>
      <header className="sandbox-section__header">
        <h2 id={id}>{title}</h2>
        {action}
      </header>
      {children}
    </section>
  );
}

function Settings({ sandbox }: { sandbox: Sandbox }) {
  const providers = useProviders();
  const provider = providers.data?.find((p) => p.name === sandbox.provider);
  const rows: [string, ReactNode][] = [["Provider", provider?.title ?? sandbox.provider]];
  if (sandbox.url) rows.push([provider?.url.label ?? "URL", <span className="mono wrap-anywhere">{sandbox.url}</span>]);
  if (provider?.secret.accepted) rows.push([provider.secret.label, sandbox.has_secret ? "Saved" : "Not set"]);
  for (const [key, value] of Object.entries(sandbox.config as Record<string, unknown>)) {
    rows.push([key, <span className="mono wrap-anywhere">{formatValue(value)}</span>]);
  }
  return (
    <Section title="Settings">
      <dl className="settings-list">
        {rows.map(([term, value]) => (
          <div key={term} className="settings-list__row">
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </Section>
  );
}

/** A config value as words: lists joined, an object as its keys and values. */
export function formatValue(value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? "none" : value.map(formatValue).join(", ");
  if (value === null || value === "") return "none";
  if (typeof value === "object") {
    return Object.entries(value as Record<string, unknown>)
      .map(([key, v]) => `${key}: ${formatValue(v)}`)
      .join(" · ");
  }
  return String(value);
}

function Agents({ sandboxId }: { sandboxId: string }) {
  const agents = useSandboxAgents(sandboxId, true);
  return (
    <Section title="Agents">
      {agents.isPending && <Loading />}
      {agents.isError && <ProblemMessage error={agents.error} />}
      {agents.data?.length === 0 && <p className="muted">No agent uses this sandbox.</p>}
      {agents.data && agents.data.length > 0 && (
        <ul className="agent-chips" aria-label="Agents using this sandbox">
          {agents.data.map((agent) => (
            <li key={agent.id}>
              <Link className="agent-chip" to={`/agents/${agent.id}`}>
                <span aria-hidden="true">{emojiPrefix(agent.emoji)}</span>
                {agent.name}
              </Link>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

function Instances({ sandbox }: { sandbox: Sandbox }) {
  const instances = useSandboxInstances(sandbox.id, true);
  const providers = useProviders();
  const canPause = providers.data?.find((p) => p.name === sandbox.provider)?.capabilities.includes("pause_resume") ?? false;
  return (
    <Section title="Live instances">
      {instances.isPending && <Loading />}
      {instances.isError && <ProblemMessage error={instances.error} />}
      {instances.data && <InstancesTable instances={instances.data} canPause={() => canPause} />}
    </Section>
  );
}

function Health({ sandbox, canProbe }: { sandbox: Sandbox; canProbe: boolean }) {
  const probe = useProbeSandbox();
  return (
    <Section
      title="Probe history"
      action={
        canProbe && (
          <Button size="sm" busy={probe.isPending} disabled={probe.isPending} onClick={() => probe.mutate({ id: sandbox.id })}>
            Check health
          </Button>
        )
      }
    >
      {probe.isError && <ProblemMessage error={probe.error} />}
      <ProbeChart history={sandbox.health.history} />
    </Section>
  );
}

const outcomeTones = { success: "ok", denied: "danger", invalid: "warn", conflict: "warn", error: "danger" } as const;

function AuditEntries({ sandboxId }: { sandboxId: string }) {
  const audit = useSandboxAudit(sandboxId);
  const entries = audit.data?.items ?? [];
  return (
    <Section
      title="Audit entries"
      action={<Link to={`/settings/audit?resource_type=sandbox&resource_id=${sandboxId}`}>Open in the audit log</Link>}
    >
      {audit.isPending && <Loading />}
      {audit.isError && <ProblemMessage error={audit.error} />}
      {audit.data && entries.length === 0 && <p className="muted">Nothing recorded yet.</p>}
      {entries.length > 0 && (
        <ul className="sandbox-audit" aria-label="Audit entries of this sandbox">
          {entries.map((entry) => (
            <li key={entry.id} className="sandbox-audit__entry">
              <time dateTime={entry.at} className="mono nowrap">
                {new Date(entry.at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" })}
              </time>
              <span className="sandbox-audit__action">{entry.action}</span>
              <Pill tone={outcomeTones[entry.outcome]}>{entry.outcome}</Pill>
              <span className="muted">by {entry.actor.token_name || "unknown token"}</span>
              {entry.detail && <span className="sandbox-audit__detail">{entry.detail}</span>}
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
