/**
 * The timeline of one key as rows a person scans: consecutive reconciles that ended the same way
 * fold into one row ("×19 same result"), and times get as many digits as it takes for
 * neighbouring rows whose times differ to read differently. Pure: no DOM, tested in plain Node.
 */
import type { ReconcileSummary } from '../../src/protocol';

export interface TimelineRow {
  /** The reconciles the row stands for, oldest first (one, or a run of the same result). */
  runs: ReconcileSummary[];
  outcome: string;
  faults?: string[];
}

/** Folds runs of consecutive finished reconciles with the same outcome and the same faults. */
export function foldTimeline(history: ReconcileSummary[]): TimelineRow[] {
  const rows: TimelineRow[] = [];
  for (const r of history) {
    const prev = rows[rows.length - 1];
    if (prev && r.end !== null && sameResult(prev.runs[prev.runs.length - 1]!, r))
      prev.runs.push(r);
    else rows.push({ runs: [r], outcome: r.outcome, ...(r.faults ? { faults: r.faults } : {}) });
  }
  return rows;
}

function sameResult(a: ReconcileSummary, b: ReconcileSummary): boolean {
  return (
    a.end !== null &&
    a.outcome === b.outcome &&
    (a.faults ?? []).join('\u0000') === (b.faults ?? []).join('\u0000')
  );
}

/** When a row happened: one time, or "first – last" when its passes span a while. */
export function rowTime(row: TimelineRow, at: (ms: number) => string): string {
  const first = at(row.runs[0]!.start);
  const last = at(row.runs[row.runs.length - 1]!.start);
  return first === last ? first : `${first} – ${last}`;
}

/**
 * Each pass of a folded row by its number, with its time where it differs from the pass before
 * (passes of a hot loop on the virtual clock can all start at one instant).
 */
export function passLabels(row: TimelineRow, at: (ms: number) => string): string[] {
  let prev: string | undefined;
  return row.runs.map((r, i) => {
    const time = at(r.start);
    const label = time === prev ? `#${i + 1}` : `#${i + 1} ${time}`;
    prev = time;
    return label;
  });
}

/**
 * What each row's time column reads. When every row starts at one instant (a hot loop on the
 * virtual clock, where no controller time passes between passes), times cannot tell the rows
 * apart: they read as the reconciles' numbers in order ("#1", "#2–21") and `note` says the time
 * once.
 */
export function rowLabels(
  rows: TimelineRow[],
  at: (ms: number) => string,
): { labels: string[]; note?: string } {
  const times = rows.map((row) => rowTime(row, at));
  if (rows.length < 2 || times.some((t) => t !== times[0])) return { labels: times };
  let n = 0;
  const labels = rows.map((row) => {
    const first = n + 1;
    n += row.runs.length;
    return first === n ? `#${n}` : `#${first}–${n}`;
  });
  return {
    labels,
    note: `All at ${times[0]}: no controller time passed between them, so they are numbered in order.`,
  };
}
