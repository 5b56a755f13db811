import { formatHours, usedAnything, type DayStack, type Series } from "./series";

const palette = ["#2563eb", "#16a34a", "#d97706", "#9333ea", "#dc2626", "#0891b2", "#65a30d", "#db2777"];
const width = 640;
const height = 240;
const pad = { left: 48, right: 8, top: 12, bottom: 28 };

export function colourOf(i: number): string {
  return palette[i] ?? "#6b7280";
}

/** A tick's label, with as many decimals as its step needs. */
function tickLabel(v: number, step: number): string {
  return v.toFixed(Math.max(0, -Math.floor(Math.log10(step))));
}

/** Nice round steps for the hours axis. */
function ticks(max: number): number[] {
  if (max <= 0) return [0, 1];
  const raw = max / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = 0; v <= max + step / 2; v += step) out.push(v);
  return out;
}

/**
 * Instance-hours per day stacked by group: an SVG chart with axes and a
 * legend, and beside it the same numbers as a table for screen readers.
 */
export function UsageChart({ days, series, caption }: { days: DayStack[]; series: Series[]; caption: string }) {
  const axis = ticks(Math.max(0, ...days.map((d) => d.total)));
  const top = axis[axis.length - 1] || 1;
  const step = axis[1] ?? 1;
  const plotW = width - pad.left - pad.right;
  const plotH = height - pad.top - pad.bottom;
  const slot = plotW / Math.max(days.length, 1);
  const y = (h: number) => pad.top + plotH - (h / top) * plotH;
  const labelEvery = Math.ceil(days.length / 8);
  return (
    <div className="usage-chart">
      <figure className="usage-chart__figure">
        <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-hidden="true" className="usage-chart__svg">
          {axis.map((v) => (
            <g key={v}>
              <line x1={pad.left} x2={width - pad.right} y1={y(v)} y2={y(v)} className="usage-chart__grid" />
              <text x={pad.left - 6} y={y(v) + 4} textAnchor="end" className="usage-chart__tick">
                {tickLabel(v, step)}
              </text>
            </g>
          ))}
          <text x={12} y={pad.top + plotH / 2} transform={`rotate(-90 12 ${pad.top + plotH / 2})`} textAnchor="middle" className="usage-chart__tick">
            instance-hours
          </text>
          {days.map((d, i) => {
            let base = 0;
            const x = pad.left + i * slot + slot * 0.15;
            return (
              <g key={d.day} data-day={d.day}>
                {series.map((s, si) => {
                  const h = d.hours[s.key] ?? 0;
                  if (h <= 0) return null;
                  const rect = (
                    <rect key={s.key} x={x} width={slot * 0.7} y={y(base + h)} height={Math.max(y(base) - y(base + h), 0.5)} fill={colourOf(si)}>
                      <title>{`${d.day} · ${s.name}: ${formatHours(h)} h`}</title>
                    </rect>
                  );
                  base += h;
                  return rect;
                })}
                {i % labelEvery === 0 && (
                  <text x={x + slot * 0.35} y={height - 8} textAnchor="middle" className="usage-chart__tick">
                    {d.day.slice(5)}
                  </text>
                )}
              </g>
            );
          })}
          <line x1={pad.left} x2={width - pad.right} y1={y(0)} y2={y(0)} className="usage-chart__axis" />
          <line x1={pad.left} x2={pad.left} y1={pad.top} y2={y(0)} className="usage-chart__axis" />
        </svg>
        <ul className="usage-chart__legend" aria-label="Legend">
          {series.map((s, i) => (
            <li key={s.key}>
              <span className="usage-chart__swatch" style={{ background: colourOf(i) }} aria-hidden="true" />
              {s.name}
            </li>
          ))}
        </ul>
      </figure>
      {/* Focusable: a keyboard scrolls the table where it is wider than its column. */}
      <div className="usage-chart__table" tabIndex={0} role="region" aria-label={`${caption}, as a table`}>
        <table>
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              {series.map((s) => (
                <th scope="col" key={s.key}>
                  {s.name}
                </th>
              ))}
              <th scope="col">Total</th>
              <th scope="col">Commands</th>
              <th scope="col">Command hours</th>
              <th scope="col">Terminal hours</th>
              <th scope="col">Kept GiB-days</th>
            </tr>
          </thead>
          <tbody>
            {days
              .filter(usedAnything)
              .map((d) => (
                <tr key={d.day}>
                  <th scope="row">{d.day}</th>
                  {series.map((s) => (
                    <td key={s.key}>{formatHours(d.hours[s.key] ?? 0)}</td>
                  ))}
                  <td>{formatHours(d.total)}</td>
                  <td>{d.commands}</td>
                  <td>{formatHours(d.commandSeconds / 3600)}</td>
                  <td>{formatHours(d.terminalSeconds / 3600)}</td>
                  <td>{formatHours(d.keptGiBDays)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
