/**
 * The panel's time-series plots, drawn with uPlot (canvas; small, no dependencies). It fits the
 * webview's CSP: it styles its elements only through the CSSOM (`el.style.x = …`, which a CSP
 * does not restrict), injects no <style> and evaluates no strings; its stylesheet is bundled
 * into debugger.css, which the CSP allows as the webview's own resource. A canvas cannot read CSS
 * variables, so the theme's colours are read from VS Code's variables when a plot is made, and
 * the plots are made again when the theme changes.
 *
 * A plot lives across renders (the panel re-renders on every state): new data is given to the
 * same plot, so the cursor and its hover values stay where the user points.
 */
import uPlot from 'uplot';
import { formatDuration, formatOffset } from '../../src/vscode/model/timeformat';
import type { Columns } from './chartdata';
import { h } from './dom';

export interface PlotSpec {
  /** Names the plot across renders. */
  id: string;
  title: string;
  /** The y axis's label, with its unit. */
  yLabel: string;
  series: Array<{ label: string; style: 'step' | 'points' }>;
  data: Columns;
  /** How a y value reads on the axis and in the hover values. */
  format(v: number): string;
  /** Whole numbers only on the y axis (counts). */
  integers?: boolean;
}

const HEIGHT = 140;
const PALETTE = ['blue', 'orange', 'green', 'purple', 'red', 'yellow'];

interface Plot {
  plot: uPlot;
  figure: HTMLElement;
  /** The series and theme the plot was made for: another shape or theme needs a new plot. */
  shape: string;
}
const plots = new Map<string, Plot>();

/** A figure holding the plot of `spec`, with its title; an empty plot says so. */
export function plotFigure(spec: PlotSpec): HTMLElement {
  const shape = `${spec.series.map((s) => s.label).join('\u0000')}|${themeKey()}`;
  let p = plots.get(spec.id);
  if (p && p.shape !== shape) {
    p.plot.destroy();
    p = undefined;
  }
  if (p) p.plot.setData(spec.data as uPlot.AlignedData);
  else {
    const holder = h('div', { class: 'plot' });
    const plot = new uPlot(options(spec), spec.data as uPlot.AlignedData, holder);
    const figure = h('figure', { class: 'chart', 'aria-label': `${spec.title} chart` });
    figure.append(h('figcaption', {}, spec.title), holder);
    fitWidth(plot, holder);
    p = { plot, figure, shape };
    plots.set(spec.id, p);
  }
  p.figure.classList.toggle('no-data', spec.data[0].length === 0);
  return p.figure;
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

function options(spec: PlotSpec): uPlot.Options {
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
    // Clock seconds since the session's start, not dates.
    scales: {
      // A single moment (the clock stands still while held) still gets a second of axis.
      x: {
        time: false,
        range: (u) => {
          const xs = u.data[0];
          const first = xs[0] ?? 0;
          const last = xs[xs.length - 1] ?? 0;
          return last > first ? [first, last] : [first, first + 1];
        },
      },
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
    },
    axes: [
      {
        ...axis('time since start', (_u, splits) => splits.map(axisOffset)),
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
      { label: 'time', value: (_u, v) => (v === null ? '—' : formatOffset(v * 1000, 0)) },
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
                paths: uPlot.paths.stepped!({ align: 1 }),
                points: { show: (_u, _i, first, last) => last - first < 1, size: 5, fill: colour },
              }
            : { paths: () => null, points: { show: true, size: 5, fill: colour } }),
        };
      }),
    ],
    legend: { live: true },
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
function fitWidth(plot: uPlot, holder: HTMLElement): void {
  new ResizeObserver(([entry]) => {
    const width = Math.floor(entry?.contentRect.width ?? 0);
    if (width > 0 && width !== plot.width) plot.setSize({ width, height: HEIGHT });
  }).observe(holder);
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function themeKey(): string {
  return `${document.body.className}|${cssVar('--vscode-charts-blue', '')}`;
}
