import { h } from './dom';

const SVG = 'http://www.w3.org/2000/svg';

/** A small line chart (sparkline with min/max labels) as inline SVG; no chart library needed for one polyline. */
export function sparkline(
  title: string,
  points: Array<[number, number]>,
  unit: string,
): HTMLElement {
  const width = 220;
  const height = 48;
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', `${title} chart`);
  svg.classList.add('spark');
  const ys = points.map((p) => p[1]);
  const max = Math.max(1, ...ys);
  if (points.length > 1) {
    const t0 = points[0]![0];
    const t1 = points[points.length - 1]![0];
    const span = Math.max(1, t1 - t0);
    const coords = points
      .map(
        ([t, y]) =>
          `${(((t - t0) / span) * (width - 2) + 1).toFixed(1)},${(height - 2 - (y / max) * (height - 6)).toFixed(1)}`,
      )
      .join(' ');
    const line = document.createElementNS(SVG, 'polyline');
    line.setAttribute('points', coords);
    line.setAttribute('fill', 'none');
    line.setAttribute('stroke', 'currentColor');
    line.setAttribute('stroke-width', '1.5');
    svg.append(line);
  }
  const last = ys.length ? ys[ys.length - 1]! : 0;
  return h(
    'figure',
    { class: 'chart' },
    h(
      'figcaption',
      {},
      `${title}: `,
      h('strong', {}, `${round(last)}${unit}`),
      ` (max ${round(max)}${unit})`,
    ),
    svg,
  );
}

function round(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
