/** One bar: its name (a day, a group) and its count. */
export interface Bar {
  label: string;
  value: number;
}

const HEIGHT = 120;
const GAP = 0.2;

/**
 * A small bar chart drawn as SVG (ADR 0022: a chart is a few rects; no chart library in the
 * console's bundle). The picture is one image with a summary for screen readers; the numbers are
 * the table beside it (ReportNumbers), which screen readers read and anyone may show.
 */
export function DayBars({ bars, label }: { bars: readonly Bar[]; label: string }) {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const width = Math.max(1, bars.length);
  return (
    <svg
      className="bar-chart"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${width} ${HEIGHT}`}
      preserveAspectRatio="none"
      data-testid="day-bars"
    >
      <line
        x1={0}
        x2={width}
        y1={HEIGHT}
        y2={HEIGHT}
        className="bar-axis"
        vectorEffect="non-scaling-stroke"
      />
      {bars.map((bar, index) => {
        const height = (bar.value / max) * HEIGHT;
        return (
          <rect key={bar.label} x={index + GAP / 2} y={HEIGHT - height} width={1 - GAP} height={height}>
            <title>{`${bar.label}: ${bar.value}`}</title>
          </rect>
        );
      })}
    </svg>
  );
}

/** Horizontal bars of a breakdown (one per group, channel, ...), each with its name and count beside it. */
export function KeyBars({ bars, label }: { bars: readonly Bar[]; label: string }) {
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  return (
    <ul className="key-bars" aria-label={label}>
      {bars.map((bar) => (
        <li key={bar.label}>
          <bdi className="key-bar-label">{bar.label}</bdi>
          <svg className="key-bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true">
            <rect x={0} y={0} width={(bar.value / max) * 100} height={10} />
          </svg>
          <span className="key-bar-value">{bar.value}</span>
        </li>
      ))}
    </ul>
  );
}
