// An effect and its confidence interval drawn against zero, one row per treatment (SVG through
// visx scales and axes). Each row also says in words where the interval stands.
import { AxisBottom } from '@visx/axis';
import { Group } from '@visx/group';
import { scaleLinear } from '@visx/scale';
import { Line } from '@visx/shape';
import { intervalDomain, intervalReading } from '../lib/series';

export interface IntervalRow {
  label: string;
  effect: number;
  ci: [number, number];
}

const WIDTH = 560;
const ROW = 34;
const MARGIN = { top: 10, right: 24, bottom: 34, left: 120 };

export function IntervalPlot({
  title,
  rows,
  format,
}: {
  title: string;
  rows: IntervalRow[];
  format: (v: number) => string;
}) {
  const height = MARGIN.top + MARGIN.bottom + ROW * Math.max(rows.length, 1);
  const x = scaleLinear<number>({
    domain: intervalDomain(rows.map((r) => r.ci)),
    range: [MARGIN.left, WIDTH - MARGIN.right],
    nice: true,
  });
  const zero = x(0);
  const description = rows
    .map(
      (r) =>
        `${r.label}: ${format(r.effect)}, interval ${format(r.ci[0])} to ${format(r.ci[1])}, ${intervalReading(r.ci)}`,
    )
    .join('; ');
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${height}`} width="100%" role="img" aria-label={`${title}. ${description}`}>
        <Line
          from={{ x: zero, y: MARGIN.top }}
          to={{ x: zero, y: height - MARGIN.bottom }}
          stroke="#555"
          strokeDasharray="4 3"
        />
        {rows.map((r, i) => {
          const y = MARGIN.top + ROW * i + ROW / 2;
          const reading = intervalReading(r.ci);
          const color = reading === 'includes zero' ? '#5b6470' : reading === 'above zero' ? '#1b7a3d' : '#b3261e';
          return (
            <Group key={r.label}>
              <text x={MARGIN.left - 8} y={y + 4} textAnchor="end" fontSize={12} fill="#222">
                {r.label}
              </text>
              <Line from={{ x: x(r.ci[0]), y }} to={{ x: x(r.ci[1]), y }} stroke={color} strokeWidth={3} />
              <Line
                from={{ x: x(r.ci[0]), y: y - 6 }}
                to={{ x: x(r.ci[0]), y: y + 6 }}
                stroke={color}
                strokeWidth={2}
              />
              <Line
                from={{ x: x(r.ci[1]), y: y - 6 }}
                to={{ x: x(r.ci[1]), y: y + 6 }}
                stroke={color}
                strokeWidth={2}
              />
              <circle cx={x(r.effect)} cy={y} r={5} fill={color} />
            </Group>
          );
        })}
        <AxisBottom
          top={height - MARGIN.bottom}
          scale={x}
          numTicks={5}
          tickFormat={(v) => format(Number(v))}
          tickLabelProps={{ fontSize: 11, fill: '#333' }}
          stroke="#888"
          tickStroke="#888"
        />
      </svg>
      <figcaption className="small muted">
        {title}: dot = estimate, bar = confidence interval, dashed line = no effect.
      </figcaption>
    </figure>
  );
}
