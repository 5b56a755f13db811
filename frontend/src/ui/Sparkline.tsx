interface SparklineProps {
  /** One value a point; null marks a failure, drawn as a full-height mark that breaks the line. */
  values: (number | null)[];
  label: string;
  width?: number;
  height?: number;
}

/** A tiny line chart of recent values, described to screen readers by its label. */
export function Sparkline({ values, label, width = 64, height = 18 }: SparklineProps) {
  const max = Math.max(...values.map((v) => v ?? 0), 1);
  const step = values.length > 1 ? (width - 4) / (values.length - 1) : 0;
  const x = (i: number) => 2 + i * step;
  const y = (v: number) => height - 2 - (v / max) * (height - 4);
  // The line joins runs of answered points only: a failure has no latency to draw.
  const runs: [number, number][][] = [];
  values.forEach((v, i) => {
    if (v === null) return;
    if (i === 0 || values[i - 1] === null) runs.push([]);
    runs[runs.length - 1]!.push([x(i), y(v)]);
  });
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      {runs.map((run) =>
        run.length > 1 ? (
          <polyline key={run[0]![0]} points={run.map(([px, py]) => `${px},${py}`).join(" ")} fill="none" strokeWidth="1.5" />
        ) : (
          <circle key={run[0]![0]} cx={run[0]![0]} cy={run[0]![1]} r="1.5" className="sparkline__point" />
        ),
      )}
      {values.map((v, i) =>
        v === null ? <line key={i} x1={x(i)} x2={x(i)} y1={2} y2={height - 2} strokeWidth="2" className="sparkline__fail" /> : null,
      )}
    </svg>
  );
}
