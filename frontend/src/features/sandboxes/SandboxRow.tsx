import { Activity, Pencil, Trash2 } from "lucide-react";
import { Link } from "react-router-dom";
import type { Sandbox } from "../../api/types";
import { Button } from "../../ui/Button";
import { IconButton } from "../../ui/IconButton";
import { Pill } from "../../ui/Pill";
import { useProbeSandbox } from "./api/probeSandbox";
import { HealthBadge } from "./HealthBadge";
import { SandboxPoolStatus } from "./PoolStatus";
import { ProviderIcon } from "../../ui/ProviderIcon";

interface SandboxRowProps {
  sandbox: Sandbox;
  providerTitle: string;
  /** Members see the row without its actions. */
  canManage: boolean;
  onEdit: () => void;
  onDelete: () => void;
}

function liveInstances(n: number) {
  return n === 1 ? "1 live instance" : `${n} live instances`;
}

export function SandboxRow({ sandbox, providerTitle, canManage, onEdit, onDelete }: SandboxRowProps) {
  const probe = useProbeSandbox();
  return (
    <li className="list-row sandbox-row" aria-label={sandbox.name}>
      <ProviderIcon provider={sandbox.provider} />
      <div className="list-row__main">
        <div className="list-row__title">
          <Link to={`/sandboxes/${sandbox.id}`} className="truncate sandbox-row__name">
            {sandbox.name}
          </Link>
          <Pill tone="accent">{providerTitle}</Pill>
        </div>
        {sandbox.description && <p className="muted truncate">{sandbox.description}</p>}
        <div className="list-row__meta">
          {sandbox.url && (
            <span className="mono truncate sandbox-row__url" title={sandbox.url}>
              {sandbox.url}
            </span>
          )}
          <HealthBadge health={sandbox.health} />
          <SandboxPoolStatus sandbox={sandbox} />
          {sandbox.live_instances !== undefined && (
            <Link to={`/sandboxes/${sandbox.id}`} className="sandbox-row__instances" aria-label={`${liveInstances(sandbox.live_instances)} of ${sandbox.name}`}>
              {liveInstances(sandbox.live_instances)}
            </Link>
          )}
        </div>
      </div>
      {canManage && (
        <div className="list-row__actions">
          <Button
            variant="ghost"
            size="sm"
            aria-label={`Check health of ${sandbox.name}`}
            busy={probe.isPending}
            disabled={probe.isPending}
            onClick={() => probe.mutate({ id: sandbox.id })}
          >
            {!probe.isPending && <Activity size={15} aria-hidden="true" />}
            Check health
          </Button>
          <IconButton label={`Edit ${sandbox.name}`} icon={<Pencil size={15} aria-hidden="true" />} onClick={onEdit} />
          <IconButton
            label={`Delete ${sandbox.name}`}
            tone="danger"
            icon={<Trash2 size={15} aria-hidden="true" />}
            onClick={onDelete}
          />
        </div>
      )}
    </li>
  );
}
