import { Download } from "lucide-react";
import { useMemo, useState } from "react";
import { describeError } from "../../api/problem";
import { useSession } from "../../session/SessionContext";
import { Button } from "../../ui/Button";
import { EmptyState } from "../../ui/EmptyState";
import { Loading } from "../../ui/Loading";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { usePageTitle } from "../../ui/usePageTitle";
import { downloadUsageCSV, useUsage, type Usage, type UsageGroup, type UsageSpan } from "./api/getUsage";
import { formatHours, stackByDay, top } from "./series";
import { UsageChart } from "./UsageChart";
import "./usage.css";

/** The last `days` days, today included, as whole UTC days. */
function lastDays(days: number): UsageSpan {
  const now = new Date();
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  const from = new Date(to);
  from.setUTCDate(from.getUTCDate() - days);
  return { from: from.toISOString(), to: to.toISOString() };
}

function TopList({ title, usage }: { title: string; usage: Usage | undefined }) {
  const rows = usage ? top(usage.rows, 5) : [];
  return (
    <section className="usage-top" aria-label={title}>
      <h2>{title}</h2>
      {rows.length === 0 ? (
        <p className="usage-muted">None in this span.</p>
      ) : (
        <ol>
          {rows.map((r) => (
            <li key={r.key || "none"}>
              <span className="truncate">{r.name || (r.key ? r.key : "Warm pool (no thread yet)")}</span>
              <span className="usage-top__hours">{formatHours(r.hours)} h</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export default function UsagePage() {
  usePageTitle("Usage");
  const { isAdmin } = useSession();
  const [days, setDays] = useState(14);
  const span = useMemo(() => lastDays(days), [days]);
  const group: UsageGroup | undefined = isAdmin ? "sandbox" : undefined;
  const bySandbox = useUsage(span, group);
  const byAgent = useUsage(span, "agent", isAdmin);
  const byThread = useUsage(span, "thread", isAdmin);
  const [downloadError, setDownloadError] = useState("");
  const [downloading, setDownloading] = useState(false);

  const stacked = useMemo(
    () => (bySandbox.data ? stackByDay(bySandbox.data.rows, span.from, span.to) : undefined),
    [bySandbox.data, span],
  );
  const total = bySandbox.data?.rows.reduce((sum, r) => sum + (r.running_seconds + r.paused_seconds) / 3600, 0) ?? 0;
  const cost = bySandbox.data?.rows.every((r) => r.estimated_cost != null)
    ? bySandbox.data.rows.reduce((sum, r) => sum + (r.estimated_cost ?? 0), 0)
    : undefined;

  const download = async () => {
    setDownloading(true);
    setDownloadError("");
    try {
      await downloadUsageCSV(span, group);
    } catch (e) {
      setDownloadError(describeError(e));
    } finally {
      setDownloading(false);
    }
  };

  let content;
  if (bySandbox.isPending) content = <Loading label="Loading usage…" />;
  else if (bySandbox.isError)
    content = (
      <ProblemMessage error={bySandbox.error} action={<Button size="sm" onClick={() => bySandbox.refetch()}>Retry</Button>} />
    );
  else if (!stacked || stacked.series.length === 0) content = <EmptyState>No instance ran in this span.</EmptyState>;
  else
    content = (
      <UsageChart
        days={stacked.days}
        series={stacked.series}
        caption={isAdmin ? "Instance-hours per day by sandbox" : "Instance-hours per day, the workspace's total"}
      />
    );

  return (
    <div className="page">
      <header className="page-header">
        <h1>Usage</h1>
        <p className="page-header__lead">
          Instance-hours, running and paused, per day (UTC){isAdmin ? ", by sandbox" : ", the workspace's total"}.
        </p>
      </header>
      <div className="usage-toolbar">
        <label>
          Span{" "}
          <select value={days} onChange={(e) => setDays(Number(e.target.value))} aria-label="Span">
            <option value={7}>Last 7 days</option>
            <option value={14}>Last 14 days</option>
            <option value={30}>Last 30 days</option>
          </select>
        </label>
        <p className="usage-summary" aria-live="polite">
          <strong>{formatHours(total)}</strong> instance-hours
          {cost !== undefined && bySandbox.data && bySandbox.data.rows.length > 0 && (
            <>
              {" "}
              · estimated cost{" "}
              <strong>
                {cost.toFixed(2)} {bySandbox.data.currency}
              </strong>{" "}
              <span className="usage-muted">(an estimate from the operator's rates)</span>
            </>
          )}
        </p>
        <Button size="sm" busy={downloading} onClick={download}>
          <Download size={14} aria-hidden="true" /> Download CSV
        </Button>
      </div>
      {downloadError && (
        <p className="notice" role="alert">
          {downloadError}
        </p>
      )}
      {content}
      {isAdmin && (
        <div className="usage-tops">
          <TopList title="Top agents" usage={byAgent.data} />
          <TopList title="Top threads" usage={byThread.data} />
        </div>
      )}
    </div>
  );
}
