import { Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import type { Token } from "../../api/types";
import { usePageTitle } from "../../ui/usePageTitle";
import { useSession } from "../../session/SessionContext";
import { Button } from "../../ui/Button";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { EmptyState } from "../../ui/EmptyState";
import { IconButton } from "../../ui/IconButton";
import { Loading } from "../../ui/Loading";
import { Pill } from "../../ui/Pill";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { formatDate, timeAgo } from "../../ui/time";
import { useTokens } from "../../api/listTokens";
import { useRevokeToken } from "./api/revokeToken";
import { CreateTokenDialog } from "./CreateTokenDialog";
import "./tokens.css";

export default function TokensPage() {
  usePageTitle("API tokens");
  const { me } = useSession();
  const tokens = useTokens();
  const revoke = useRevokeToken();
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<Token | null>(null);

  const closeRevoke = () => {
    setRevoking(null);
    revoke.reset();
  };

  let content;
  if (tokens.isPending) content = <Loading label="Loading tokens…" />;
  else if (tokens.isError)
    content = <ProblemMessage error={tokens.error} action={<Button size="sm" onClick={() => tokens.refetch()}>Retry</Button>} />;
  else if (tokens.data.length === 0) content = <EmptyState>No tokens.</EmptyState>;
  else
    content = (
      <ul className="list" aria-label="API tokens">
        {tokens.data.map((token) => (
          <li key={token.id} className="list-row token-row">
            <div className="list-row__main">
              <div className="list-row__title">
                <span className="truncate">{token.name}</span>
                <Pill tone={token.role === "admin" ? "accent" : "neutral"}>{token.role}</Pill>
                {token.id === me.token_id && <Pill tone="ok">this session</Pill>}
              </div>
              <div className="list-row__meta">
                <span>
                  Created {formatDate(token.created_at)}
                  {token.created_by && ` by ${token.created_by}`}
                </span>
                <span>{token.last_used_at ? `Last used ${timeAgo(token.last_used_at)}` : "Never used"}</span>
              </div>
            </div>
            <div className="list-row__actions">
              <IconButton
                label={`Revoke ${token.name}`}
                tone="danger"
                icon={<Trash2 size={15} aria-hidden="true" />}
                onClick={() => setRevoking(token)}
              />
            </div>
          </li>
        ))}
      </ul>
    );

  return (
    <div className="page">
      <header className="page-header">
        <h1>
          API tokens <Pill tone="accent">admin</Pill>
        </h1>
        <span className="spacer" />
        <Button variant="primary" onClick={() => setCreating(true)}>
          <Plus size={14} aria-hidden="true" /> Create token
        </Button>
        <p className="page-header__lead">Tokens of workspace {me.workspace.name}. Each is shown once, when it is created.</p>
      </header>
      {content}
      <CreateTokenDialog open={creating} onOpenChange={setCreating} />
      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => !open && closeRevoke()}
        title="Revoke token"
        confirmLabel="Revoke token"
        busy={revoke.isPending}
        error={revoke.error ?? undefined}
        onConfirm={() => revoking && revoke.mutate(revoking.id, { onSuccess: closeRevoke })}
      >
        <p>
          Revoke <strong>{revoking?.name}</strong>? Anything using it stops working at once.
          {revoking?.id === me.token_id && " This is the token you are signed in with: you will be signed out."}
        </p>
      </ConfirmDialog>
    </div>
  );
}
