import { useLayoutEffect, useRef, useState } from "react";
import type { ProbeRecord } from "../../api/types";
import { reasonLabels } from "./dialog/TestConnection";

interface ProbeChartProps {
  history: ProbeRecord[];
  width?: number;
  height?: number;
}

const pad = { left: 48, right: 12, top: 12, bottom: 30 };

/** A probe's time to the second, as the axis and the table show it. */
export function probeTime(iso: string): string {
  return new Date(iso).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}

/**
 * The sandbox's recent probes as a chart with labelled axes: latency (ms)
 * over time, failures as red crosses on the time axis; below it, each
 * failure with its reason and the provider's words.
 */
export function ProbeChart({ history, width: initialWidth = 640, height = 200 }: ProbeChartProps) {
  // Drawn at the width it is shown at, so that its labels keep their size on a phone.
  const ref = useRef<HTMLElement>(null);
  const [width, setWidth] = useState(initialWidth);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(([entry]) => {
      const w = Math.round(entry?.contentRect.width ?? 0);
      if (w > 0) setWidth(Math.max(w, 240));
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  if (history.length === 0) {
    return <p className="muted">No probes yet: the health job or “Check health” makes the first.</p>;
  }
  const times = history.map((p) => new Date(p.at).getTime());
  const first = Math.min(...times);
  const last = Math.max(...times);
  const span = Math.max(last - first, 1);
  const maxLatency = niceCeiling(Math.max(...history.filter((p) => p.ok).map((p) => p.latency_ms), 1));
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const x = (t: number) => pad.left + (history.length === 1 ? plotW / 2 : ((t - first) / span) * plotW);
  const y = (ms: number) => pad.top + plotH - (ms / maxLatency) * plotH;
  const answered = history.map((p, i) => ({ p, t: times[i]! })).filter(({ p }) => p.ok);
  const failures = history.filter((p) => !p.ok);
  const yTicks = [0, maxLatency / 2, maxLatency];
  const xTicks = history.length === 1 ? [first] : [first, first + span / 2, last];
  const summary = `${history.length} probes from ${probeTime(history[0]!.at)} to ${probeTime(history[history.length - 1]!.at)}: ${
    answered.length
  } answered${answered.length ? ` (${Math.min(...answered.map((a) => a.p.latency_ms))}–${Math.max(...answered.map((a) => a.p.latency_ms))} ms)` : ""}, ${failures.length} failed.`;

  return (
    <figure className="probe-chart" ref={ref}>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={summary} className="probe-chart__svg">
        {yTicks.map((ms) => (
          <g key={ms} className="probe-chart__grid">
            <line x1={pad.left} x2={width - pad.right} y1={y(ms)} y2={y(ms)} />
            <text x={pad.left - 6} y={y(ms) + 4} textAnchor="end">
              {Math.round(ms)}
            </text>
          </g>
        ))}
        <text className="probe-chart__axis-title" x={12} y={pad.top + plotH / 2} transform={`rotate(-90 12 ${pad.top + plotH / 2})`} textAnchor="middle">
          latency (ms)
        </text>
        {xTicks.map((t, i) => (
          <text
            key={t}
            className="probe-chart__tick"
            x={x(t)}
            y={height - 8}
            textAnchor={xTicks.length === 1 ? "middle" : i === 0 ? "start" : i === xTicks.length - 1 ? "end" : "middle"}
          >
            {probeTime(new Date(t).toISOString())}
          </text>
        ))}
        <line className="probe-chart__axis" x1={pad.left} x2={width - pad.right} y1={pad.top + plotH} y2={pad.top + plotH} />
        <line className="probe-chart__axis" x1={pad.left} x2={pad.left} y1={pad.top} y2={pad.top + plotH} />
        {answered.length > 1 && (
          <polyline className="probe-chart__line" points={answered.map(({ p, t }) => `${x(t)},${y(p.latency_ms)}`).join(" ")} />
        )}
        {answered.map(({ p, t }) => (
          <circle key={p.at} className="probe-chart__point" cx={x(t)} cy={y(p.latency_ms)} r={3}>
            <title>{`${probeTime(p.at)}: answered in ${p.latency_ms} ms`}</title>
          </circle>
        ))}
        {history.map((p, i) =>
          p.ok ? null : (
            <g key={p.at} className="probe-chart__failure" transform={`translate(${x(times[i]!)} ${pad.top + plotH})`}>
              <line x1={0} x2={0} y1={0} y2={-plotH} className="probe-chart__failure-rule" />
              <path d="M-4,-4 L4,4 M-4,4 L4,-4" />
              <title>{`${probeTime(p.at)}: failed — ${reasonLabels[p.reason] ?? "Failed"}${p.detail ? `: ${p.detail}` : ""}`}</title>
            </g>
          ),
        )}
      </svg>
      <figcaption className="muted probe-chart__caption">
        Latency of the last {history.length} probes over time; a red cross on the time axis is a failed probe.
      </figcaption>
      {failures.length > 0 && (
        <table className="table probe-failures">
          <caption className="visually-hidden">Failed probes</caption>
          <thead>
            <tr>
              <th scope="col">Failed at</th>
              <th scope="col">Reason</th>
              <th scope="col">What the provider said</th>
            </tr>
          </thead>
          <tbody>
            {failures
              .slice()
              .reverse()
              .map((p) => (
                <tr key={p.at}>
                  <td className="nowrap">
                    <time dateTime={p.at}>{probeTime(p.at)}</time>
                  </td>
                  <td>{reasonLabels[p.reason] ?? "Unknown"}</td>
                  <td className="wrap-anywhere">{p.detail || "No detail recorded."}</td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
    </figure>
  );
}

/** 1, 2 or 5 times a power of ten, at least n: round axis labels. */
export function niceCeiling(n: number): number {
  const power = 10 ** Math.floor(Math.log10(n));
  for (const step of [1, 2, 5, 10]) {
    if (step * power >= n) return step * power;
  }
  return 10 * power;
}
