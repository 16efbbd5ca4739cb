/**
 * The panel's time-series plots, drawn with uPlot (canvas; small, no dependencies). It fits the
 * webview's CSP: it styles its elements only through the CSSOM (`el.style.x = …`, which a CSP
 * does not restrict), injects no <style> and evaluates no strings; its stylesheet is bundled
 * into debugger.css, which the CSP allows as the webview's own resource. A canvas cannot read CSS
 * variables, so the theme's colours are read from VS Code's variables when a plot is made, and
 * the plots are made again when the theme changes.
 *
 * A plot lives across renders (the panel re-renders on every state): new data is given to the
 * same plot, so the cursor and its hover values stay where the user points. uPlot is loaded on
 * the first plot (esbuild keeps it in the same bundle, evaluated then): it measures the screen
 * when it loads, which a page without `matchMedia` or a canvas (a DOM test) cannot; there the
 * figure keeps its caption, which says the latest values in words.
 */
import type uPlot from 'uplot';
import { formatDuration, formatOffset } from '../../src/vscode/model/timeformat';
import type { ChartData } from './chartdata';
import { h } from './dom';

export interface PlotSpec {
  /** Names the plot across renders. */
  id: string;
  title: string;
  /** The latest values in words, e.g. "2 now, at most 5": the caption, and all a screen reader gets. */
  summary: string;
  /** The y axis's label, with its unit. */
  yLabel: string;
  series: Array<{ label: string; style: 'step' | 'points' }>;
  /** The columns, x in seconds of running time, and the controller's clock at each x. */
  data: ChartData;
  /** The session's start on the controller's clock: the hover says the clock as t+… from it. */
  origin: number;
  /** How a y value reads on the axis and in the hover values. */
  format(v: number): string;
  /** Whole numbers only on the y axis (counts). */
  integers?: boolean;
  /** The x axis, in seconds of running time: the panel's charts share one. */
  xRange: [number, number];
}

const HEIGHT = 140;
const PALETTE = ['blue', 'orange', 'green', 'purple', 'red', 'yellow'];

interface Plot {
  figure: HTMLElement;
  caption: HTMLElement;
  holder: HTMLElement;
  spec: PlotSpec;
  plot?: uPlot;
  /** The series and theme the plot was made for: another shape or theme needs a new plot. */
  shape?: string;
}
const plots = new Map<string, Plot>();
let UPlot: typeof uPlot | undefined;
let loading: Promise<void> | undefined;

/** A figure holding the plot of `spec`, with its title and latest values; an empty plot says so. */
export function plotFigure(spec: PlotSpec): HTMLElement {
  let p = plots.get(spec.id);
  if (!p) {
    const caption = h('figcaption', {});
    const holder = h('div', { class: 'plot', 'aria-hidden': 'true' });
    const figure = h('figure', { class: 'chart', 'aria-label': `${spec.title} chart` });
    figure.append(caption, holder);
    p = { figure, caption, holder, spec };
    plots.set(spec.id, p);
    fitWidth(p);
  }
  p.spec = spec;
  p.caption.replaceChildren(h('strong', {}, spec.title), ` — ${spec.summary}`);
  p.figure.classList.toggle('no-data', spec.data.columns[0].length === 0);
  // How many distinct times the plot has points at (read by the e2e tests: a hot loop on the
  // virtual clock spreads over running time instead of standing in one column).
  p.figure.dataset.xs = String(new Set(spec.data.columns[0]).size);
  draw(p);
  return p.figure;
}

function draw(p: Plot): void {
  if (!canDraw()) return;
  if (!UPlot) {
    loading ??= import('uplot').then((m) => {
      UPlot = m.default;
      for (const q of plots.values()) draw(q);
    });
    return;
  }
  const shape = `${p.spec.series.map((s) => s.label).join('\u0000')}|${themeKey()}`;
  if (p.plot && p.shape !== shape) {
    p.plot.destroy();
    p.plot = undefined;
  }
  const data = p.spec.data.columns as uPlot.AlignedData;
  if (p.plot) p.plot.setData(data);
  else {
    p.plot = new UPlot(options(p, UPlot), data, p.holder);
    p.shape = shape;
    // A plot made again (new series, new theme) in a pane whose width did not change.
    const width = p.holder.clientWidth;
    if (width > 0) p.plot.setSize({ width, height: HEIGHT });
  }
}

let drawable: boolean | undefined;
function canDraw(): boolean {
  drawable ??=
    typeof matchMedia === 'function' &&
    typeof ResizeObserver === 'function' &&
    !!document.createElement('canvas').getContext('2d');
  return drawable;
}

/** Calls `render` when VS Code switches the colour theme (it changes the body's classes). */
export function onThemeChange(render: () => void): void {
  let key = themeKey();
  new MutationObserver(() => {
    if (themeKey() === key) return;
    key = themeKey();
    render();
  }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
}

function options(p: Plot, U: typeof uPlot): uPlot.Options {
  const spec = p.spec;
  const fg = cssVar('--vscode-descriptionForeground', cssVar('--vscode-foreground', '#888'));
  const grid = cssVar('--vscode-editorWidget-border', cssVar('--vscode-panel-border', '#8884'));
  const font = `${cssVar('--vscode-font-size', '12px')} ${cssVar('--vscode-font-family', 'sans-serif')}`;
  const axis = (label: string, values: uPlot.Axis['values']): uPlot.Axis => ({
    label,
    stroke: fg,
    font,
    labelFont: font,
    grid: { stroke: grid, width: 1 },
    ticks: { stroke: grid, width: 1 },
    values,
  });
  return {
    width: 320,
    height: HEIGHT,
    // Seconds of running time, not dates.
    scales: {
      // The range the panel gives every chart (read at each redraw: it grows with the clock).
      x: { time: false, range: () => p.spec.xRange },
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      {
        ...axis('running time', (_u, splits) => splits.map(axisOffset)),
        size: 26,
        labelSize: 18,
        space: 64,
      },
      {
        ...axis(spec.yLabel, (_u, splits) => splits.map(spec.format)),
        ...(spec.integers ? { incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] } : {}),
        size: 56,
      },
    ],
    series: [
      {
        label: 'running',
        // The running time under the cursor, and the controller's clock there when it was read.
        value: (_u, v, _s, i) => {
          if (v === null) return '—';
          const clock = i === null ? null : (p.spec.data.clocks[i] ?? null);
          const run = axisOffset(v);
          return clock === null ? run : `${run} (clock ${formatOffset(clock, p.spec.origin)})`;
        },
      },
      ...spec.series.map((s, i): uPlot.Series => {
        const colour = cssVar(`--vscode-charts-${PALETTE[i % PALETTE.length]}`, '#3794ff');
        return {
          label: s.label,
          stroke: colour,
          width: 1.5,
          value: (_u, v) => (v === null || v === undefined ? '—' : spec.format(v)),
          ...(s.style === 'step'
            ? // A step line needs two points to be seen: a lone one is drawn as a dot.
              {
                paths: U.paths.stepped!({ align: 1 }),
                points: { show: (_u, _i, first, last) => last - first < 1, size: 5, fill: colour },
              }
            : { paths: () => null, points: { show: true, size: 5, fill: colour } }),
        };
      }),
    ],
    legend: { live: true },
    // The x range the plot shows, on its figure: the charts share one (and the e2e tests check it).
    hooks: {
      setScale: [
        (u, key) => {
          if (key !== 'x') return;
          const { min, max } = u.scales.x!;
          const figure = u.root.closest('figure');
          if (figure && min !== undefined && max !== undefined)
            figure.dataset.xRange = `${min}–${max}`;
        },
      ],
    },
    cursor: { drag: { x: false, y: false } },
  };
}

/** An x axis tick: "0", "+1.5s", "+2m00s". */
function axisOffset(seconds: number): string {
  return seconds === 0
    ? '0'
    : `${seconds < 0 ? '-' : '+'}${formatDuration(Math.abs(seconds) * 1000)}`;
}

/** Keeps the plot as wide as the pane it is shown in. */
function fitWidth(p: Plot): void {
  if (!canDraw()) return;
  new ResizeObserver(([entry]) => {
    const width = Math.floor(entry?.contentRect.width ?? 0);
    if (p.plot && width > 0 && width !== p.plot.width) p.plot.setSize({ width, height: HEIGHT });
  }).observe(p.holder);
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function themeKey(): string {
  return `${document.body.className}|${cssVar('--vscode-charts-blue', '')}`;
}
