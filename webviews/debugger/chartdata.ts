/**
 * The charts' data in uPlot's shape — one array of x values and one array of y values per
 * series — built from the points the host sends ([clock ms, value, run ms], ChartPoint). The x
 * axis is the session's running time in seconds (wall-clock time since it started, time held in
 * the debugger left out), not the controller's clock: on the virtual clock a hot loop's
 * reconciles all happen at one instant of controller time and would stand in one column at
 * t≈0, while over running time they read as the rate they ran at. Each x keeps the controller's
 * clock beside it, for the values under the cursor. Pure: no DOM, tested in plain Node.
 */
import type { ChartPoint, KeySeries } from '../../src/protocol';
import { formatDuration } from '../../src/vscode/model/timeformat';

export type Points = ChartPoint[];

/** uPlot's AlignedData: x first, then each series (null where it has no value). */
export type Columns = [number[], ...Array<Array<number | null>>];

/** A plot's columns, and the controller's clock (ms) at each x (null where none was read). */
export interface ChartData {
  columns: Columns;
  clocks: Array<number | null>;
}

/** A running time (ms) in seconds: the charts' x axis. */
export function seconds(runMs: number): number {
  return runMs / 1000;
}

/** One series of separate measurements (each reconcile's latency) as it was recorded. */
export function pointColumns(points: Points): ChartData {
  return {
    columns: [points.map(([, , run]) => seconds(run)), points.map(([, v]) => v)],
    clocks: points.map(([at]) => at),
  };
}

/**
 * Series of values that hold until they change (a queue's depth, a running count) on one shared
 * x axis: each carries its last value forward, is empty before its first point, and — given
 * `until` (the running time now, ms) — reaches to the present, so a flat line does not stop at
 * its last change.
 */
export function stepColumns(series: Points[], until?: number): ChartData {
  const clockAt = new Map<number, number | null>();
  for (const s of series) for (const [at, , run] of s) clockAt.set(run, at);
  const last = Math.max(...clockAt.keys());
  if (until !== undefined && clockAt.size && until > last) clockAt.set(until, null);
  const runs = [...clockAt.keys()].sort((a, b) => a - b);
  const ys = series.map((s) => {
    const sorted = [...s].sort((a, b) => a[2] - b[2]);
    let i = 0;
    let value: number | null = null;
    return runs.map((run) => {
      // Several points at one time: the last one is the value from then on.
      while (i < sorted.length && sorted[i]![2] <= run) value = sorted[i++]![1];
      return value;
    });
  });
  return {
    columns: [runs.map(seconds), ...ys],
    clocks: runs.map((run) => clockAt.get(run) ?? null),
  };
}

/** The widths a rate's buckets may have (ms): the narrowest that keeps RATE_BUCKETS or fewer. */
const BUCKET_WIDTHS = [
  50, 100, 200, 500, 1000, 2000, 5000, 10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000,
  3_600_000,
];
export const RATE_BUCKETS = 40;

/** Reconciles per second in buckets of running time, one series per key. */
export interface RateData extends ChartData {
  /** The buckets' width (ms). */
  bucketMs: number;
  /** Each series' highest rate (reconciles per second). */
  peaks: number[];
}

/**
 * Each key's reconciles per second of running time, counted in buckets of one width (the
 * narrowest of BUCKET_WIDTHS that covers the run up to `until` ms in RATE_BUCKETS or fewer), as
 * steps from each bucket's start to the next. A series' points are one per reconcile (a
 * reconciles-per-key series: its count goes up by one at each); a hot loop is its high plateau.
 */
export function rateColumns(series: Points[], until: number): RateData {
  let end = until;
  for (const s of series) for (const [, , run] of s) end = Math.max(end, run);
  const bucketMs =
    BUCKET_WIDTHS.find((w) => end / w <= RATE_BUCKETS) ?? BUCKET_WIDTHS[BUCKET_WIDTHS.length - 1]!;
  if (series.every((s) => s.length === 0))
    return { columns: [[], ...series.map(() => [])], clocks: [], bucketMs, peaks: [] };
  // A point exactly at `end` is in the last bucket, not in one of its own.
  const buckets = Math.max(1, Math.ceil(end / bucketMs));
  const perSecond = 1000 / bucketMs;
  const ys = series.map((s) => {
    const counts = new Array<number>(buckets).fill(0);
    for (const [, , run] of s) counts[Math.min(buckets - 1, Math.floor(run / bucketMs))]! += 1;
    const rates = counts.map((n) => n * perSecond);
    // The last bucket's value held to the axis's end.
    return [...rates, rates[rates.length - 1]!];
  });
  const xs = Array.from({ length: buckets }, (_, i) => seconds(i * bucketMs));
  // To the axis's end; a run with no time yet shows its one bucket whole.
  xs.push(seconds(end > (buckets - 1) * bucketMs ? end : buckets * bucketMs));
  return {
    columns: [xs, ...ys],
    clocks: xs.map(() => null),
    bucketMs,
    peaks: ys.map((y) => Math.max(...y)),
  };
}

/** A rate in words: "120/s", "2.5/s", "0/s". */
export function formatRate(perSecond: number): string {
  if (perSecond === 0) return '0/s';
  const digits = perSecond >= 10 ? 0 : perSecond >= 1 ? 1 : 2;
  return `${Number(perSecond.toFixed(digits))}/s`;
}

/** Each key's highest rate in words ("default/shop at most 160/s (per 50ms)"); "none yet" when empty. */
export function ratesInWords(keys: string[], rate: RateData): string {
  if (keys.length === 0 || rate.columns[0].length === 0) return 'none yet';
  const each = keys.map((key, i) => `${key} at most ${formatRate(rate.peaks[i] ?? 0)}`);
  return `${each.join(', ')} (counted per ${formatDuration(rate.bucketMs)})`;
}

/** Reconciles this many or more at one instant of controller time make a pile-up worth saying. */
export const PILE_UP_MIN = 10;

/**
 * A key's reconciles that piled up at one instant of controller time (each within `gapMs` of
 * the one before it): how many, how much controller time and running time they spanned, and
 * where on the controller's clock they began.
 */
export interface PileUp {
  key: string;
  reconciles: number;
  clockMs: number;
  runMs: number;
  at: number;
}

/**
 * Each key's largest pile-up of PILE_UP_MIN or more reconciles (the latest of equals), largest
 * first: on the virtual clock a key requeued at once is reconciled again and again while the
 * controller's clock stands still.
 */
export function pileUps(series: KeySeries[], min = PILE_UP_MIN, gapMs = 1): PileUp[] {
  const found: PileUp[] = [];
  for (const { key, points } of series) {
    const sorted = [...points].sort((a, b) => a[2] - b[2]);
    let best: PileUp | undefined;
    let from = 0;
    for (let i = 1; i <= sorted.length; i++) {
      if (i < sorted.length && Math.abs(sorted[i]![0] - sorted[i - 1]![0]) <= gapMs) continue;
      const n = i - from;
      if (n >= min && n >= (best?.reconciles ?? 0)) {
        const first = sorted[from]!;
        const last = sorted[i - 1]!;
        best = {
          key,
          reconciles: n,
          clockMs: Math.abs(last[0] - first[0]),
          runMs: last[2] - first[2],
          at: first[0],
        };
      }
      from = i;
    }
    if (best) found.push(best);
  }
  return found.sort((a, b) => b.reconciles - a.reconciles);
}

/**
 * A pile-up in words, as a rate: "default/shop: hot loop — 21 reconciles in 0ms of controller
 * time, over 180ms of running time (111/s)".
 */
export function pileUpInWords(p: PileUp): string {
  // n reconciles span n − 1 gaps.
  const rate = p.runMs > 0 ? ` (${formatRate(((p.reconciles - 1) * 1000) / p.runMs)})` : '';
  return `${p.key}: hot loop — ${p.reconciles} reconciles in ${formatDuration(p.clockMs)} of controller time, over ${formatDuration(p.runMs)} of running time${rate}`;
}

/** A series' latest and largest value in words ("2 now, at most 5"); "none yet" when empty. */
export function latestInWords(
  points: Points,
  format: (v: number) => string,
  latest = 'now',
): string {
  if (points.length === 0) return 'none yet';
  const last = points[points.length - 1]![1];
  const max = Math.max(...points.map(([, v]) => v));
  return `${format(last)} ${latest}, at most ${format(max)}`;
}

/** Each key's latest count in words ("default/blog 24, default/shop 6"). */
export function countsInWords(series: KeySeries[]): string {
  if (series.length === 0) return 'none yet';
  return series.map((s) => `${s.key} ${s.points[s.points.length - 1]?.[1] ?? 0}`).join(', ');
}

/**
 * The x range the panel's charts share, in seconds of running time: from the start (or an
 * earlier point) to now (`nowMs`, or a later point); a lone moment gets a second of axis.
 */
export function sharedRange(xs: number[][], nowMs: number): [number, number] {
  let lo = 0;
  let hi = nowMs > 0 ? seconds(nowMs) : 0;
  for (const column of xs)
    for (const x of column) {
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  return hi > lo ? [lo, hi] : [lo, lo + 1];
}
