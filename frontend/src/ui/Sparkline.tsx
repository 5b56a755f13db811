interface SparklineProps {
  values: number[];
  /** Marks points (by index) drawn as failures. */
  failed?: boolean[];
  label: string;
  width?: number;
  height?: number;
}

/** A tiny line chart of recent values, described to screen readers by its label. */
export function Sparkline({ values, failed = [], label, width = 64, height = 18 }: SparklineProps) {
  const max = Math.max(...values, 1);
  const step = values.length > 1 ? (width - 4) / (values.length - 1) : 0;
  const points = values.map((v, i) => [2 + i * step, height - 2 - (v / max) * (height - 4)] as const);
  return (
    <svg className="sparkline" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      <polyline points={points.map(([x, y]) => `${x},${y}`).join(" ")} fill="none" strokeWidth="1.5" />
      {points.map(([x, y], i) => (failed[i] ? <circle key={i} cx={x} cy={y} r="2" className="sparkline__fail" /> : null))}
    </svg>
  );
}
