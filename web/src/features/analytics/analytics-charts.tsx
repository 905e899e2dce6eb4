import { Group } from '@visx/group';
import { scaleBand, scaleLinear } from '@visx/scale';
import { Bar } from '@visx/shape';

/** One bar: pct is its length in percent of the chart (the caller clamps), text its printed value. */
export interface BarRow {
  key: string;
  label: string;
  pct: number;
  text: string;
  help?: string;
  color?: string;
}

const WIDTH = 640;
const LABEL_WIDTH = 150;
const ROW_HEIGHT = 40;

/**
 * Horizontal bars drawn with visx (SVG, no inline script; loaded with the
 * analytics route only). The SVG is one labelled image: each chart has a
 * table view beside it, which is what assistive technology reads.
 */
export default function BarChart({ title, rows }: { title: string; rows: BarRow[] }) {
  const height = Math.max(1, rows.length) * ROW_HEIGHT;
  const y = scaleBand<string>({ domain: rows.map((r) => r.key), range: [0, height], padding: 0.2 });
  const x = scaleLinear<number>({ domain: [0, 100], range: [0, WIDTH - LABEL_WIDTH - 8], clamp: true });
  const band = y.bandwidth();
  return (
    <svg className="analytics__chart" viewBox={`0 0 ${WIDTH} ${height}`} width="100%" role="img" aria-label={title}>
      <Group left={LABEL_WIDTH}>
        {rows.map((r) => {
          const top = y(r.key) ?? 0;
          const w = x(r.pct);
          const inside = w > r.text.length * 8 + 20; // the value (with its unit) fits on the bar, else it follows it
          return (
            <g key={r.key} data-bar={r.key}>
              <text x={-10} y={top + band / 2} textAnchor="end" dominantBaseline="middle" className="analytics__chart-label">
                {r.label}
              </text>
              <Bar x={0} y={top} width={w} height={band} rx={6} fill={r.color ?? '#2e5bba'} data-pct={r.pct.toFixed(1)}>
                <title>{r.help ? `${r.label}: ${r.text}. ${r.help}` : `${r.label}: ${r.text}`}</title>
              </Bar>
              <text x={inside ? 10 : w + 6} y={top + band / 2} dominantBaseline="middle" className={`analytics__chart-value${inside ? '' : ' analytics__chart-value--out'}`}>
                {r.text}
              </text>
            </g>
          );
        })}
      </Group>
    </svg>
  );
}
