import { ShieldAlert } from "lucide-react";
import { useSearchParams } from "react-router-dom";
import { describeError, isApiError } from "../../api/problem";
import { usePageTitle } from "../../ui/usePageTitle";
import { useSession } from "../../session/SessionContext";
import { Button } from "../../ui/Button";
import { EmptyState } from "../../ui/EmptyState";
import { Loading } from "../../ui/Loading";
import { Pill } from "../../ui/Pill";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { useTokens } from "../../api/listTokens";
import { useAuditLog } from "./api/listAudit";
import { AuditEntryRow } from "./AuditEntryRow";
import { AuditFilterForm } from "./AuditFilterForm";
import { filtersFromSearch, searchFromFilters } from "./filters";
import "./audit.css";

export default function AuditPage() {
  usePageTitle("Audit log");
  const { isAdmin } = useSession();
  const [search, setSearch] = useSearchParams();
  const filters = filtersFromSearch(search);
  const log = useAuditLog(filters);
  const tokens = useTokens(isAdmin);

  if (isApiError(log.error) && log.error.status === 403) {
    return (
      <div className="page">
        <header className="page-header">
          <h1>Audit log</h1>
        </header>
        <div className="notice audit-denied" role="alert">
          <ShieldAlert size={16} aria-hidden="true" />
          <p>
            Only admins can read the audit log. {describeError(log.error)} Ask an admin of your workspace for what you need.
          </p>
        </div>
      </div>
    );
  }

  const fieldErrors: Partial<Record<string, string[]>> = {};
  if (isApiError(log.error)) {
    for (const e of log.error.fieldErrors) (fieldErrors[e.field] ??= []).push(e.message);
  }
  const entries = log.data?.pages.flatMap((p) => p.items) ?? [];

  let content;
  if (log.isPending) content = <Loading label="Loading the audit log…" />;
  else if (log.isError)
    content = <ProblemMessage error={log.error} action={<Button size="sm" onClick={() => log.refetch()}>Retry</Button>} />;
  else if (entries.length === 0) content = <EmptyState>No entries match these filters.</EmptyState>;
  else
    content = (
      <>
        <ul className="list audit-list" aria-label="Audit entries">
          {entries.map((entry) => (
            <AuditEntryRow key={entry.id} entry={entry} />
          ))}
        </ul>
        {log.hasNextPage ? (
          <Button className="audit-more" busy={log.isFetchingNextPage} onClick={() => log.fetchNextPage()}>
            Show older entries
          </Button>
        ) : (
          <p className="audit-end">The oldest entry is shown.</p>
        )}
      </>
    );

  return (
    <div className="page">
      <header className="page-header">
        <h1>
          Audit log <Pill tone="accent">admin</Pill>
        </h1>
        <p className="page-header__lead">Every change in the workspace, and every attempt refused, newest first.</p>
      </header>
      {/* Made anew when the URL changes or the token names arrive, so it shows the filters in force. */}
      <AuditFilterForm
        key={`${search.toString()}|${tokens.dataUpdatedAt}`}
        filters={filters}
        tokens={tokens.data ?? []}
        errors={fieldErrors}
        onApply={(next) => setSearch(searchFromFilters(next))}
      />
      {content}
    </div>
  );
}
