/**
 * The Reconcile Debugger's chart series, built from what a session records: the queue depth as
 * it changes, each reconcile's latency, and the reconciles of the busiest keys over time. Points
 * are [clock ms, value]; the panel draws them against the time since the session's start. The
 * TypeScript session (debuggermodel.ts) and the Go session (godebugview.ts) both build theirs here.
 */
import type { KeySeries } from '../../protocol';
import type { ReconcileTrace } from '../../runtime/trace';

/** Points kept per series (the oldest dropped first): enough for a chart a few hundred pixels wide. */
export const MAX_POINTS = 300;

/** How many keys the reconciles-per-key chart follows (the busiest). */
export const MAX_KEYS = 5;

/** Debugger stops kept for the latency chart: several per reconcile, for its last MAX_POINTS. */
export const MAX_HOLDS = 10 * MAX_POINTS;

export function pushPoint(
  series: Array<[number, number]>,
  p: [number, number],
  max = MAX_POINTS,
): void {
  series.push(p);
  if (series.length > max) series.splice(0, series.length - max);
}

type Finished = Pick<ReconcileTrace, 'key' | 'start' | 'end'>;

/**
 * Each of the busiest keys' reconciles counted up over time (a step at each reconcile's end, or
 * its start while it runs): a key in a hot loop is the steep line.
 */
export function reconcilesPerKey(traces: Finished[], maxKeys = MAX_KEYS): KeySeries[] {
  const byKey = new Map<string, Array<[number, number]>>();
  const sorted = [...traces].sort((a, b) => (a.end ?? a.start) - (b.end ?? b.start));
  for (const t of sorted) {
    let points = byKey.get(t.key);
    if (!points) byKey.set(t.key, (points = []));
    points.push([t.end ?? t.start, points.length + 1]);
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
export function latencySeries(
  traces: Finished[],
  holds: Array<[number, number]> = [],
): Array<[number, number]> {
  const shown = traces
    .filter((t): t is Finished & { end: number } => t.end !== undefined)
    .sort((a, b) => a.end - b.end)
    .slice(-MAX_POINTS);
  const since = Math.min(...shown.map((t) => t.start));
  const during = holds.filter(([, to]) => to > since);
  return shown.map((t) => {
    let held = 0;
    for (const [from, to] of during)
      held += Math.max(0, Math.min(to, t.end) - Math.max(from, t.start));
    return [t.end, Math.max(0, t.end - t.start - held)];
  });
}

/**
 * Requests waiting in a manager's queues: the keys known to be queued or the depth its metrics
 * report (`workqueue_depth`), whichever is larger, summed over its controllers.
 */
export function queueDepthOf(snapshots: Array<{ queued: unknown[]; depth?: number }>): number {
  return snapshots.reduce((n, s) => n + Math.max(s.queued.length, s.depth ?? 0), 0);
}
