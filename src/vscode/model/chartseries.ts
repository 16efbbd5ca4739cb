/**
 * The Reconcile Debugger's chart series, built from what a session records: the queue depth as
 * it changes, each reconcile's latency, and the reconciles of the busiest keys over time. Points
 * are [clock ms, value, run ms] (ChartPoint): the panel draws them against the session's running
 * time — wall-clock time since it started, time held in the debugger left out — so that a hot
 * loop on the virtual clock, whose reconciles share one instant of controller time, reads as a
 * rate. The TypeScript session (debuggermodel.ts) and the Go sessions (godebugview.ts,
 * observedrun.ts) all build theirs here.
 */
import type { ChartPoint, KeySeries } from '../../protocol';
import type { ReconcileTrace } from '../../runtime/trace';

/** Points kept per series (the oldest dropped first): enough for a chart a few hundred pixels wide. */
export const MAX_POINTS = 300;

/** How many keys the reconciles-per-key chart follows (the busiest). */
export const MAX_KEYS = 5;

/** Debugger stops kept for the latency chart: several per reconcile, for its last MAX_POINTS. */
export const MAX_HOLDS = 10 * MAX_POINTS;

export function pushPoint<P>(series: P[], p: P, max = MAX_POINTS): void {
  series.push(p);
  if (series.length > max) series.splice(0, series.length - max);
}

type Finished = Pick<ReconcileTrace, 'key' | 'start' | 'end'>;

/**
 * The running time (ms) of a trace's point — its end, or its start while it runs — as the
 * session measured it (runningTime for a session on the wall clock).
 */
export type RunOf<T extends Finished> = (t: T) => number;

/**
 * A session on the wall clock (a Go operator's): the running time (ms) at wall-clock time `at`,
 * counted from `origin`, less the time the process stood stopped in the debugger (`holds`,
 * [from, to] wall ms, one after another; a hold still going on ends at Infinity).
 */
export function runningTime(
  origin: number,
  holds: ReadonlyArray<readonly [number, number]>,
): (at: number) => number {
  const sorted = holds
    .map(([from, to]) => [Math.max(from, origin), to] as const)
    .filter(([from, to]) => to > from)
    .sort((a, b) => a[0] - b[0]);
  // held[i]: the time held in the holds before the i-th.
  const held = [0];
  for (const [from, to] of sorted) held.push(held[held.length - 1]! + (to - from));
  return (at) => {
    // The last hold that began before `at`.
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]![0] < at) lo = mid + 1;
      else hi = mid;
    }
    const last = sorted[lo - 1];
    const inLast = last ? Math.min(last[1], at) - last[0] : 0;
    return Math.max(0, at - origin - (held[lo - 1] ?? 0) - inLast);
  };
}

/**
 * Each of the busiest keys' reconciles counted up over running time (a step at each reconcile's
 * end, or its start while it runs): a key in a hot loop is the steep line.
 */
export function reconcilesPerKey<T extends Finished>(
  traces: T[],
  runOf: RunOf<T>,
  maxKeys = MAX_KEYS,
): KeySeries[] {
  const byKey = new Map<string, ChartPoint[]>();
  const sorted = traces
    .map((t) => ({ t, run: runOf(t), at: t.end ?? t.start }))
    .sort((a, b) => a.run - b.run || a.at - b.at);
  for (const { t, run, at } of sorted) {
    let points = byKey.get(t.key);
    if (!points) byKey.set(t.key, (points = []));
    points.push([at, points.length + 1, run]);
  }
  return [...byKey]
    .sort((a, b) => b[1].length - a[1].length)
    .slice(0, maxKeys)
    .map(([key, points]) => ({ key, points: points.slice(-MAX_POINTS) }));
}

/**
 * Each finished reconcile's latency at its end: end − start, less the time the process spent
 * stopped in the debugger during it (`holds`, [from, to] clock ms), so a breakpoint is not
 * charted as a slow reconcile.
 */
export function latencySeries<T extends Finished>(
  traces: T[],
  runOf: RunOf<T>,
  holds: Array<[number, number]> = [],
): ChartPoint[] {
  const shown = traces
    .filter((t): t is T & { end: number } => t.end !== undefined)
    .sort((a, b) => a.end - b.end)
    .slice(-MAX_POINTS);
  const since = Math.min(...shown.map((t) => t.start));
  const during = holds.filter(([, to]) => to > since);
  return shown.map((t) => {
    let held = 0;
    for (const [from, to] of during)
      held += Math.max(0, Math.min(to, t.end) - Math.max(from, t.start));
    return [t.end, Math.max(0, t.end - t.start - held), runOf(t)];
  });
}

/**
 * Requests waiting in a manager's queues: the keys known to be queued or the depth its metrics
 * report (`workqueue_depth`), whichever is larger, summed over its controllers.
 */
export function queueDepthOf(snapshots: Array<{ queued: unknown[]; depth?: number }>): number {
  return snapshots.reduce((n, s) => n + Math.max(s.queued.length, s.depth ?? 0), 0);
}
