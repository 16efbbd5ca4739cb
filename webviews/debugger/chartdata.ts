/**
 * The charts' data in uPlot's shape — one array of x values (seconds since the session's start)
 * and one array of y values per series — built from the [clock ms, value] points the host sends.
 * Pure: no DOM, tested in plain Node.
 */

export type Points = Array<[number, number]>;

/** uPlot's AlignedData: x first, then each series (null where it has no value). */
export type Columns = [number[], ...Array<Array<number | null>>];

/** Seconds since `origin`: the charts' x axis. */
export function sinceStart(at: number, origin: number): number {
  return (at - origin) / 1000;
}

/** One series of separate measurements (each reconcile's latency) as it was recorded. */
export function pointColumns(points: Points, origin: number): Columns {
  return [points.map(([at]) => sinceStart(at, origin)), points.map(([, v]) => v)];
}

/**
 * Series of values that hold until they change (a queue's depth, a running count) on one shared
 * x axis: each carries its last value forward, is empty before its first point, and — given
 * `until` (the clock now) — reaches to the present, so a flat line does not stop at its last change.
 */
export function stepColumns(series: Points[], origin: number, until?: number): Columns {
  const xs = new Set<number>();
  for (const s of series) for (const [at] of s) xs.add(at);
  const last = Math.max(...xs);
  if (until !== undefined && xs.size && until > last) xs.add(until);
  const times = [...xs].sort((a, b) => a - b);
  const ys = series.map((s) => {
    const sorted = [...s].sort((a, b) => a[0] - b[0]);
    let i = 0;
    let value: number | null = null;
    return times.map((at) => {
      // Several points at one time: the last one is the value from then on.
      while (i < sorted.length && sorted[i]![0] <= at) value = sorted[i++]![1];
      return value;
    });
  });
  return [times.map((at) => sinceStart(at, origin)), ...ys];
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
export function countsInWords(series: Array<{ key: string; points: Points }>): string {
  if (series.length === 0) return 'none yet';
  return series.map((s) => `${s.key} ${s.points[s.points.length - 1]?.[1] ?? 0}`).join(', ');
}

/**
 * The x range the panel's charts share, in seconds since the session's start: from the start
 * (or an earlier point) to now (or a later point); a lone moment (the clock stood still) gets a
 * second of axis.
 */
export function sharedRange(xs: number[][], origin: number, now: number): [number, number] {
  let lo = 0;
  let hi = now > origin ? sinceStart(now, origin) : 0;
  for (const column of xs)
    for (const x of column) {
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  return hi > lo ? [lo, hi] : [lo, lo + 1];
}
