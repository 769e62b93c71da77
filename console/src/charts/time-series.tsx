// Exposures or decisions per variant over time (SVG through visx). A suppressed cell (fewer
// subjects than the minimum cell) is drawn as a hollow grey mark on the axis band labelled
// "suppressed", and the line breaks there: it is unknown, not zero.
import { AxisBottom, AxisLeft } from '@visx/axis';
import { scaleLinear, scalePoint } from '@visx/scale';
import { LinePath } from '@visx/shape';
import type { Series } from '../lib/series';

const WIDTH = 720;
const HEIGHT = 280;
const MARGIN = { top: 16, right: 16, bottom: 56, left: 56 };
const COLORS = ['#1f5fbf', '#c2410c', '#15803d', '#7e22ce', '#b45309', '#0f766e'];

export function TimeSeries({
  title,
  buckets,
  series,
  grain,
}: {
  title: string;
  buckets: string[];
  series: Series[];
  grain: 'hour' | 'day';
}) {
  const max = Math.max(1, ...series.flatMap((s) => s.points.map((p) => p.value ?? 0)));
  const x = scalePoint<string>({ domain: buckets, range: [MARGIN.left, WIDTH - MARGIN.right], padding: 0.5 });
  const y = scaleLinear<number>({ domain: [0, max], range: [HEIGHT - MARGIN.bottom, MARGIN.top], nice: true });
  const label = (b: string) => (grain === 'day' ? b.slice(5, 10) : `${b.slice(5, 10)} ${b.slice(11, 16)}`);
  const suppressed = series.reduce((n, s) => n + s.points.filter((p) => p.suppressed).length, 0);
  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        width="100%"
        role="img"
        aria-label={`${title}: ${series.length} variant${series.length === 1 ? '' : 's'} over ${buckets.length} ${grain}s, ${suppressed} suppressed cell${suppressed === 1 ? '' : 's'}. The table below has every value.`}
      >
        {series.map((s, i) => (
          <g key={s.variant}>
            <LinePath
              data={s.points}
              x={(p) => x(p.bucketStart) ?? 0}
              y={(p) => y(p.value ?? 0)}
              defined={(p) => !p.suppressed}
              stroke={COLORS[i % COLORS.length]}
              strokeWidth={2}
            />
            {s.points.map((p) =>
              p.suppressed ? (
                <rect
                  key={p.bucketStart}
                  x={(x(p.bucketStart) ?? 0) - 4}
                  y={HEIGHT - MARGIN.bottom - 12}
                  width={8}
                  height={8}
                  fill="none"
                  stroke="#6b7280"
                  strokeWidth={1.5}
                >
                  <title>
                    {s.variant} {p.bucketStart}: suppressed
                  </title>
                </rect>
              ) : (
                <circle
                  key={p.bucketStart}
                  cx={x(p.bucketStart) ?? 0}
                  cy={y(p.value ?? 0)}
                  r={3}
                  fill={COLORS[i % COLORS.length]}
                >
                  <title>
                    {s.variant} {p.bucketStart}: {p.value}
                  </title>
                </circle>
              ),
            )}
          </g>
        ))}
        <AxisLeft
          left={MARGIN.left}
          scale={y}
          numTicks={5}
          tickLabelProps={{ fontSize: 11, fill: '#333' }}
          stroke="#888"
          tickStroke="#888"
        />
        <AxisBottom
          top={HEIGHT - MARGIN.bottom}
          scale={x}
          tickFormat={label}
          numTicks={8}
          tickLabelProps={{ fontSize: 10, fill: '#333', angle: -30, textAnchor: 'end' }}
          stroke="#888"
          tickStroke="#888"
        />
      </svg>
      <figcaption className="legend small">
        {series.map((s, i) => (
          <span key={s.variant}>
            <span className="swatch" style={{ background: COLORS[i % COLORS.length] }} /> {s.variant}
          </span>
        ))}
        <span>
          <span className="swatch swatch-suppressed" /> suppressed (fewer subjects than the minimum cell)
        </span>
      </figcaption>
    </figure>
  );
}
